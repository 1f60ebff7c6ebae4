package io.rdmakv.client;

import io.rdmakv.transport.JvmAccess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An embedding service's JVM without the flag Agrona needs: {@code build()} fails at once with a message naming
 * {@value JvmAccess#FLAG}, not with an {@link IllegalAccessError} from inside Agrona; with the flag the same build
 * gets past the check (to a connection failure here, as nothing listens), also without Chronicle Bytes (an optional
 * dependency only {@code ChronicleKv} uses) on the class path.
 */
@Timeout(120)
class EmbedderJvmFlagTest
{
    @Test
    void shouldNameTheFlagWhenTheJvmLacksIt() throws Exception
    {
        final String out = build(List.of());
        assertTrue(out.startsWith("FAILED java.lang.IllegalStateException: rdmakv needs the JVM option " +
            JvmAccess.FLAG), out);
        assertTrue(!out.contains("IllegalAccessError"), out);
    }

    @Test
    void shouldGetPastTheCheckWithTheFlag() throws Exception
    {
        assertTrue(JvmAccess.agronaHasAccess(), "the test JVM runs with the project's flags");
        final String out = build(List.of("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED"));
        assertTrue(out.startsWith("FAILED " + KvConnectionException.class.getName()), out);
        assertTrue(!out.contains("add-opens"), out);
    }

    @Test
    void shouldNeedNoChronicleBytesOnTheClassPath() throws Exception
    {
        final String classPath = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(entry -> !entry.contains("openhft")).collect(Collectors.joining(File.pathSeparator));
        assertTrue(System.getProperty("java.class.path").contains("chronicle-bytes") &&
            !classPath.contains("chronicle"), "the child's class path lacks exactly Chronicle's jars");
        final String out = build(List.of("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED"), classPath);
        assertTrue(out.startsWith("FAILED " + KvConnectionException.class.getName()), out);
    }

    /** Build in a child JVM with only {@code flags}; its one line of output. */
    private static String build(final List<String> flags) throws IOException, InterruptedException
    {
        return build(flags, System.getProperty("java.class.path"));
    }

    /** Build in a child JVM with only {@code flags} on {@code classPath}; its one line of output. */
    private static String build(final List<String> flags, final String classPath)
        throws IOException, InterruptedException
    {
        final int deadPort;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            deadPort = s.getLocalPort();
        }
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1"));
        command.addAll(flags);
        command.addAll(List.of("-cp", classPath, EmbedderBuildMain.class.getName(),
            "127.0.0.1:" + deadPort));
        final Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try
        {
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "child JVM did not finish");
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        }
        finally
        {
            p.destroyForcibly();
        }
    }
}

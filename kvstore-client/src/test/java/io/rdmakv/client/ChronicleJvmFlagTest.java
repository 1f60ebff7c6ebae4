package io.rdmakv.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JVM options Chronicle Bytes needs ({@link ChronicleJvmFlags}), in child JVMs: with rdmakv's own options only,
 * the check names exactly the two missing ones; with them as well, off-heap Bytes, Bytes over a direct buffer and a
 * mapped file all work and Chronicle logs no warning or error about the command line.
 */
@Timeout(120)
class ChronicleJvmFlagTest
{
    /** rdmakv's own options (Agrona, Netty), as the launcher and the root pom's test.jvm.args give them. */
    private static final List<String> RDMAKV = List.of("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
        "--add-opens", "java.base/java.nio=ALL-UNNAMED", "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED",
        "--enable-native-access=ALL-UNNAMED");

    @TempDir
    Path dir;

    @Test
    void shouldNameTheMissingOptionsWithRdmakvsOwnOnly() throws Exception
    {
        final String[] out = run(RDMAKV);
        assertTrue(out[0].startsWith("FAILED java.lang.IllegalStateException: rdmakv's Chronicle Bytes API needs " +
            "the JVM options " + ChronicleJvmFlags.INTERNAL_REF + " " + ChronicleJvmFlags.REFLECT + ":"), out[0]);
    }

    @Test
    void shouldWorkQuietlyWithThem() throws Exception
    {
        final List<String> flags = new ArrayList<>(RDMAKV);
        flags.addAll(List.of("--add-exports", "java.base/jdk.internal.ref=ALL-UNNAMED",
            "--add-opens", "java.base/java.lang.reflect=ALL-UNNAMED"));
        if (Runtime.version().feature() >= 24)
        {
            // JDK 24+ itself warns once that jffi (under Chronicle's posix) uses sun.misc.Unsafe's memory access
            // (JEP 498): the JDK's warning, not Chronicle's; the option (JDK 23+, unknown to 17) allows it quietly.
            flags.add("--sun-misc-unsafe-memory-access=allow");
        }
        final String[] out = run(flags);
        assertEquals("OK", out[0], out[1]);
        assertFalse(out[1].contains("WARN") || out[1].contains("ERROR"), out[1]);
        assertTrue(ChronicleJvmFlags.missing().isEmpty(), "the module's tests run with them (chronicle.jvm.args)");
    }

    /** Standard output's first line and standard error of the child. */
    private String[] run(final List<String> flags) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:TieredStopAtLevel=1"));
        command.addAll(flags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ChronicleFlagsMain.class.getName(),
            dir.resolve("mapped").toString()));
        final Path err = dir.resolve("stderr");
        final Process p = new ProcessBuilder(command).redirectError(err.toFile()).start();
        try
        {
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            assertTrue(p.waitFor(90, TimeUnit.SECONDS), "child JVM did not finish");
            return new String[] {out, Files.readString(err)};
        }
        finally
        {
            p.destroyForcibly();
        }
    }
}

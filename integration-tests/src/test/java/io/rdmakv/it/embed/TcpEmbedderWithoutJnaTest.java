package io.rdmakv.it.embed;

import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A TCP-only embedder of the client loads no JNA and no libibverbs probing: a client in a child JVM whose class path
 * lacks the JNA jar connects to a TCP node (a server process, which needs JNA for its pinned pool), puts and gets.
 * Selecting {@code tcp} by name instantiates every provider on the class path (ServiceLoader) but probes none but
 * tcp; a provider class that touched JNA on loading would end the child with a {@link NoClassDefFoundError}.
 */
@ExtendWith(ProcessJanitor.class)
class TcpEmbedderWithoutJnaTest
{
    @TempDir
    Path tmp;

    @Test
    @Timeout(240)
    void shouldServeATcpClientWhoseClassPathLacksJna() throws Exception
    {
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("tcp-node")
            .setting("transport", "tcp").start();
        final String fullClassPath = System.getProperty("surefire.test.class.path",
            System.getProperty("java.class.path"));
        final String classPath = Arrays.stream(fullClassPath.split(File.pathSeparator))
            .filter(entry -> !entry.contains(File.separator + "jna" + File.separator) &&
                !Path.of(entry).getFileName().toString().startsWith("jna-"))
            .collect(Collectors.joining(File.pathSeparator));
        assertNotEquals(fullClassPath, classPath, "the test's class path has a JNA jar to leave out: " + fullClassPath);

        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ServerProcess.PROJECT_JVM_FLAGS);
        command.add("-Xmx256m");
        command.add("-cp");
        command.add(classPath);
        command.add(TcpOnlyClientMain.class.getName());
        command.add(server.seed());
        final Path log = tmp.resolve("embedder.log");
        final Process child = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile())
            .start();
        try
        {
            if (!child.waitFor(150, TimeUnit.SECONDS))
            {
                fail("the embedder did not end within 150 s:\n" + Files.readString(log));
            }
            final String output = Files.readString(log);
            assertEquals(0, child.exitValue(), output);
            assertTrue(output.contains("no JNA on the class path") && output.lines().anyMatch("OK"::equals), output);
        }
        finally
        {
            child.destroyForcibly();
        }
    }
}

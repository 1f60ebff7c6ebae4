package io.rdmakv.it.e2e;

import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * A real server process stopped by SIGTERM (what systemd, Docker and Kubernetes send) or SIGINT (Ctrl-C) closes the
 * node gracefully and exits 0, not the JVM's 128 + signal; what it acknowledged is there after a restart.
 */
@ExtendWith(ProcessJanitor.class)
class GracefulStopTest
{
    @TempDir
    Path tmp;

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    @Timeout(120)
    void shouldExitZeroAfterAGracefulStopOnSignal(final String signal) throws Exception
    {
        // A process started in the background by a non-interactive shell (`mvn verify &`) has SIGINT ignored, and its
        // children inherit that: the JVM then leaves the signal ignored, as Unix programs must. Nothing to test then.
        assumeFalse(ignoredHere(signal), "SIG" + signal + " is ignored by this test run's process (started in the " +
            "background by a shell), so a server it starts ignores it too");
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("stop-" + signal).start();
        final byte[] key = "graceful".getBytes(StandardCharsets.UTF_8);
        final byte[] value = ("stopped by SIG" + signal).getBytes(StandardCharsets.UTF_8);
        try (KvClient client = KvClient.builder().server(server.seed()).transport(TestTransport.name())
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).build())
        {
            client.put(key, value);
        }

        final int exit = server.stop(signal, Duration.ofSeconds(60));

        assertEquals(0, exit, "SIG" + signal + " must end the server with 0" + server.diagnosis());
        final String log = Files.readString(server.stderrLog());
        assertTrue(log.contains("SIG" + signal + " received"), log);
        assertTrue(log.contains("node 1 stopped"), "the node closed before the JVM exited: " + log);
        server.restart();
        try (KvClient client = KvClient.builder().server(server.seed()).transport(TestTransport.name())
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).build())
        {
            assertArrayEquals(value, client.get(key));
        }
        assertEquals(0, server.stop(Duration.ofSeconds(60)), server.diagnosis());
    }

    /** True when this JVM's process ignores {@code signal} (/proc/self/status SigIgn), which a child inherits. */
    private static boolean ignoredHere(final String signal) throws IOException
    {
        final int number = Map.of("INT", 2, "TERM", 15).get(signal);
        for (final String line : Files.readAllLines(Path.of("/proc/self/status")))
        {
            if (line.startsWith("SigIgn:"))
            {
                final long ignored = Long.parseUnsignedLong(line.substring("SigIgn:".length()).trim(), 16);
                return (ignored & (1L << (number - 1))) != 0;
            }
        }
        return false;
    }
}

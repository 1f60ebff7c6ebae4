package io.rdmakv.it.support.faults;

import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The process injectors on a real server process: a stopped server answers nothing until resumed; kill -9 ends it. */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class ProcessFaultsTest
{
    @Test
    void shouldAnswerNothingWhileStoppedAndAnswerAfterResume(@TempDir final Path dir) throws Exception
    {
        try (ServerProcess server = ServerProcess.builder(dir.resolve("data")).name("paused").start();
            KvClient client = KvClient.builder().server(server.seed()).transport(TestTransport.name())
                .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(60)).build())
        {
            final byte[] key = "k".getBytes(StandardCharsets.UTF_8);
            client.put(key, bytes("before"));
            final CompletableFuture<Void> put;
            try (ProcessFaults.Paused paused = ProcessFaults.pause(server.pid()))
            {
                assertEquals('T', ProcessFaults.state(server.pid()), "stopped in /proc");
                put = client.putAsync(key, bytes("during"));
                // Bounded wait for something that must not happen while the process is stopped.
                assertThrows(TimeoutException.class, () -> put.get(1, TimeUnit.SECONDS));
                assertFalse(put.isDone());
            }
            assertNotEquals('T', ProcessFaults.state(server.pid()), "running again after close");
            put.get(60, TimeUnit.SECONDS);
            assertArrayEquals(bytes("during"), client.get(key));
        }
    }

    @Test
    void shouldEndTheProcessWithKillNine(@TempDir final Path dir) throws Exception
    {
        try (ServerProcess server = ServerProcess.builder(dir.resolve("data")).name("killed").start())
        {
            final long pid = server.pid();
            ProcessFaults.kill9(pid);
            final ProcessHandle handle = ProcessHandle.of(pid).orElse(null);
            if (handle != null)
            {
                handle.onExit().get(30, TimeUnit.SECONDS);
            }
            assertFalse(server.isAlive());
        }
        assertThrows(IllegalArgumentException.class, () -> ProcessFaults.kill9(1));
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

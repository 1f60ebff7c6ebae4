package io.rdmakv.transport.shm;

import io.rdmakv.transport.Listener;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A node killed with SIGKILL leaves nothing a restart must reclaim: its listening name is free again the moment the
 * process is gone (abstract sockets vanish with their last descriptor), and its memory files with their last mapping.
 */
class ShmCrashCleanupTest
{
    @Test
    @Timeout(60)
    void shouldFreeTheListeningNameWhenTheOwnerIsKilled() throws Exception
    {
        final int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final Process child = new ProcessBuilder(List.of(java, "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "--enable-native-access=ALL-UNNAMED",
            "-cp", System.getProperty("java.class.path"), ShmListenerChild.class.getName(), String.valueOf(port)))
            .redirectErrorStream(true).start();
        try (Transport transport = new ShmTransportProvider().open(TransportConfig.defaults()))
        {
            final BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8));
            String line;
            while ((line = out.readLine()) != null && !line.equals("LISTENING"))
            {
                System.out.println("child: " + line);
            }
            assertEquals("LISTENING", line, "the child never listened");
            final Worker worker = transport.createWorker("test");
            final InetSocketAddress address = new InetSocketAddress("127.0.0.1", port);
            assertThrows(TransportException.class, () -> worker.listen(address, (ep, b, o, l) -> { }),
                "the name is the child's while it lives");
            child.destroyForcibly(); // SIGKILL
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
            assertEquals(137, child.exitValue(), "killed by SIGKILL");
            try (Listener listener = worker.listen(address, (ep, b, o, l) -> { }))
            {
                assertEquals(port, listener.localAddress().getPort());
            }
            worker.close();
        }
        finally
        {
            child.destroyForcibly();
        }
    }
}

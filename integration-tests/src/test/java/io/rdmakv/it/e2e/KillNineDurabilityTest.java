package io.rdmakv.it.e2e;

import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.SelfCheckingValue;
import io.rdmakv.it.support.SelfCheckingValue.Verdict;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.it.support.TestScale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Invariant 2 end to end: a server process receiving PUTs from several threads is killed with SIGKILL mid-stream and
 * restarted on the same data dir; every acknowledged PUT is there with its acknowledged value or a later one.
 *
 * <p>Each key has one writer thread, which records the sequence it is about to send ("sent") and, once the PUT is
 * acknowledged, the sequence acknowledged ("acked"). After the restart a key must read as a self-checking value
 * for that key with {@code acked <= sequence <= sent}: never older than what was acknowledged (lost write), never
 * newer than what was sent (invented), never torn. A PUT in flight at the kill may or may not have survived.
 */
@ExtendWith(ProcessJanitor.class)
class KillNineDurabilityTest
{
    private static final int WRITERS = 4;

    @TempDir
    Path tmp;

    @Test
    @Timeout(180)
    void shouldKeepEveryAcknowledgedPutAcrossSigkill() throws Exception
    {
        final int keysPerWriter = TestScale.pick(64, 512);
        final int keyCount = WRITERS * keysPerWriter;
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("durability").start();

        final AtomicLongArray sent = new AtomicLongArray(keyCount);
        final AtomicLongArray acked = new AtomicLongArray(keyCount);
        final AtomicLong acks = new AtomicLong();
        final AtomicLong failedPuts = new AtomicLong();
        for (int k = 0; k < keyCount; k++)
        {
            sent.set(k, -1);
            acked.set(k, -1);
        }

        final KvClient client = KvClient.builder().server(server.seed()).transport(TestTransport.name()).getMode(GetMode.RPC)
            .requestTimeout(Duration.ofSeconds(3)).build();
        final List<Thread> writers = new ArrayList<>();
        try
        {
            for (int w = 0; w < WRITERS; w++)
            {
                final int writer = w;
                writers.add(new Thread(() ->
                {
                    final ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (long seq = 0; ; seq++)
                    {
                        for (int k = writer; k < keyCount; k += WRITERS)
                        {
                            final byte[] key = key(k);
                            sent.set(k, seq);
                            try
                            {
                                client.put(key, SelfCheckingValue.encode(key, seq, 32 + random.nextInt(2000)));
                            }
                            catch (final RuntimeException ex)
                            {
                                failedPuts.incrementAndGet(); // the server is gone: this PUT is in doubt
                                return;
                            }
                            acked.set(k, seq);
                            acks.incrementAndGet();
                        }
                    }
                }, "durability-writer-" + w));
            }
            writers.forEach(Thread::start);

            // Kill in the middle of the stream: after a good number of acknowledgements, writers still writing.
            final long target = TestScale.pick(1_500L, 50_000L);
            final long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (acks.get() < target && System.nanoTime() < deadline && writers.stream().allMatch(Thread::isAlive))
            {
                Thread.sleep(20);
            }
            assertTrue(writers.stream().allMatch(Thread::isAlive), "writers stopped before the kill" + server.diagnosis());
            assertTrue(acks.get() > 0, "no PUT was acknowledged before the kill" + server.diagnosis());
            server.kill();
            for (final Thread t : writers)
            {
                t.join(30_000);
                assertFalse(t.isAlive(), t.getName() + " did not notice the dead server within 30 s");
            }
        }
        finally
        {
            client.close();
        }
        assertTrue(failedPuts.get() > 0, "the kill must have hit PUTs in flight (every writer ends on a failed PUT)");
        System.out.println("kill -9 after " + acks.get() + " acknowledged PUTs; " + failedPuts.get() + " in doubt");

        server.restart();
        try (KvClient reader = KvClient.builder().server(server.seed()).transport(TestTransport.name()).getMode(GetMode.RPC)
            .requestTimeout(Duration.ofSeconds(10)).build())
        {
            long present = 0;
            final List<byte[]> keys = new ArrayList<>();
            for (int k = 0; k < keyCount; k++)
            {
                keys.add(key(k));
            }
            final List<byte[]> values = reader.multiGet(keys);
            for (int k = 0; k < keyCount; k++)
            {
                final byte[] key = keys.get(k);
                final byte[] value = values.get(k);
                final long ack = acked.get(k);
                final long bound = sent.get(k);
                if (value == null)
                {
                    assertEquals(-1, ack, "key " + k + " lost: acknowledged sequence " + ack + server.diagnosis());
                    continue;
                }
                present++;
                assertEquals(Verdict.OK, SelfCheckingValue.check(key, value), "key " + k + " damaged after restart");
                final long seq = SelfCheckingValue.sequence(value);
                assertTrue(seq >= ack, "key " + k + ": acknowledged " + ack + " but found older " + seq);
                assertTrue(seq <= bound, "key " + k + ": found " + seq + " but only " + bound + " was ever sent");
            }
            assertTrue(present > 0);
            // The restarted node takes writes again.
            reader.put(key(0), SelfCheckingValue.encode(key(0), Long.MAX_VALUE, 64));
            assertArrayEquals(SelfCheckingValue.encode(key(0), Long.MAX_VALUE, 64), reader.get(key(0)));
        }
    }

    @Test
    @Timeout(120)
    void shouldShutDownOnSigtermAndServeEverythingAfterRestart() throws Exception
    {
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("graceful").start();
        try (KvClient client = KvClient.builder().server(server.seed()).transport(TestTransport.name()).build())
        {
            final List<CompletableFuture<Void>> acks = new ArrayList<>();
            for (int k = 0; k < 200; k++)
            {
                acks.add(client.putAsync(key(k), SelfCheckingValue.encode(key(k), k, 100 + k)));
            }
            CompletableFuture.allOf(acks.toArray(new CompletableFuture[0])).join();
        }
        final int exit = server.stop(Duration.ofSeconds(30));
        assertFalse(server.isAlive());
        assertEquals(0, exit, "SIGTERM ends the server cleanly with 0: " + server.diagnosis());
        server.restart();
        try (KvClient client = KvClient.builder().server(server.seed()).transport(TestTransport.name()).getMode(GetMode.ONE_SIDED)
            .build())
        {
            final List<byte[]> keys = new ArrayList<>();
            for (int k = 0; k < 200; k++)
            {
                keys.add(key(k));
            }
            final List<byte[]> values = client.multiGet(keys);
            for (int k = 0; k < 200; k++)
            {
                assertEquals(Verdict.OK, SelfCheckingValue.check(key(k), values.get(k)), "key " + k);
                assertEquals(k, SelfCheckingValue.sequence(values.get(k)));
            }
        }
    }

    private static byte[] key(final int k)
    {
        return ("durable/" + k).getBytes(StandardCharsets.UTF_8);
    }
}

package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * No {@code byte[]} of the value is made on the way from the transport to the caller's Bytes, or from a BytesStore to
 * the transport: the bytes allocated per GET on every thread that runs its path (the caller, which may drive progress
 * itself, and the client's progress thread, found as the thread that completes a future) and per PUT on the caller's
 * (which encodes and sends it), the least over a few batches, stay far below the value's size, while the {@code byte[]} API measured the same way allocates at least the value per GET
 * (so the measurement sees such an array when there is one). Counts from the JVM's per-thread allocation counters.
 */
@Timeout(120)
class ChronicleKvAllocationTest
{
    /** Near the node's limit of 64 KiB, read one-sided (the client's one-sided buffer is raised to hold it). */
    private static final int VALUE_LENGTH = 60_000;
    private static final int ROUNDS = 300;
    private static final int BATCHES = 5;
    /**
     * Far below one value: what a request allocates besides (key views, the sink, the transport's bookkeeping, and,
     * under -ea as in these tests, about 2 KB per hand-over of the Bytes between threads for the stack traces of
     * Chronicle's single-thread check; about 130 B without -ea).
     */
    private static final long BUDGET = VALUE_LENGTH / 4;

    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    @TempDir
    Path dir;

    @ParameterizedTest(name = "{0}, GETs {1}")
    @CsvSource({"tcp, RPC", "tcp, ONE_SIDED", "shm, AUTO"})
    void shouldCreateNoArrayOfTheValueOnTheWay(final String transport, final GetMode mode) throws Exception
    {
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "per-thread allocation counter not supported here");
        threads.setThreadAllocatedMemoryEnabled(true);
        try (KvServer server = InProcessNode.start(dir, Map.of("transport", transport));
             KvClient client = InProcessNode.client(server).transport(transport).getMode(mode)
                 .oneSidedBufferBytes(128 * 1024).build())
        {
            final ChronicleKv kv = ChronicleKv.of(client);
            final byte[] expected = ChronicleKvTest.pattern(VALUE_LENGTH);
            final BytesStore<?, ?> value = BytesStore.nativeStoreFrom(expected);
            final Bytes<?> key = Bytes.allocateElasticDirect(16);
            key.append("hot");
            final Bytes<?> into = Bytes.allocateElasticDirect(VALUE_LENGTH);
            kv.put(key, value);
            final long[] path = {Thread.currentThread().getId(), completingThread(client)};

            for (int i = 0; i < ROUNDS; i++) // warm up: JIT, thread locals, the encoder's buffer at its size
            {
                into.clear();
                kv.get(key, into);
                kv.put(key, value);
                client.get("hot");
            }

            final long perGet = leastPerCall(path, () ->
            {
                into.clear();
                kv.get(key, into);
            });
            assertArrayEquals(expected, into.toByteArray());
            // A PUT's value is read on the caller's thread only (encoded, then copied into the transport's send
            // buffer); the progress thread sees only the answer. This caller does not drive progress while it waits:
            // a shm duty cycle allocates iterators (ShmEndpoint.expire), so a caller polling for a PUT's answer for a
            // millisecond allocates in proportion to the wait, not to the value.
            final long perPut;
            try (KvClient putClient = InProcessNode.client(server).transport(transport).getMode(mode)
                .callerDrivenProgress(false).build())
            {
                final ChronicleKv putKv = ChronicleKv.of(putClient);
                for (int i = 0; i < ROUNDS; i++)
                {
                    putKv.put(key, value);
                }
                perPut = leastPerCall(new long[] {path[0]}, () -> putKv.put(key, value));
            }
            final long perArrayGet = leastPerCall(path, () -> client.get("hot"));

            System.out.printf("%s %s: per GET into Bytes %d B, per PUT from a BytesStore %d B, per byte[] GET %d B " +
                "(value %d B)%n", transport, mode, perGet, perPut, perArrayGet, VALUE_LENGTH);
            assertTrue(perArrayGet >= VALUE_LENGTH, "the measurement sees the byte[] API's array: " + perArrayGet);
            assertTrue(perGet < BUDGET, "a GET into Bytes allocated " + perGet + " B per call");
            assertTrue(perPut < BUDGET, "a PUT from a BytesStore allocated " + perPut + " B per call");
            key.releaseLast();
            into.releaseLast();
            value.releaseLast();
        }
    }

    /**
     * The thread that completes the client's GETs (where their values are made): the thread a callback attached to a
     * pending future runs on. A future that completed before the callback was attached runs it on the caller instead,
     * which says nothing, so probe again until another thread answers (or, if none ever does, the caller completes
     * them itself and is the path).
     */
    private static long completingThread(final KvClient client)
    {
        final long caller = Thread.currentThread().getId();
        long completer = caller;
        for (int i = 0; i < 1_000 && completer == caller; i++)
        {
            completer = client.getAsync("hot").thenApply(v -> Thread.currentThread().getId()).join();
        }
        return completer;
    }

    /**
     * Bytes allocated per call on the path's threads, the least over {@value #BATCHES} batches: an array made on every
     * call shows in every batch, while what the transport allocates now and then (an idle wake-up, a full ring)
     * does not.
     */
    private long leastPerCall(final long[] threadIds, final Runnable call)
    {
        long least = Long.MAX_VALUE;
        for (int b = 0; b < BATCHES; b++)
        {
            final long before = allocated(threadIds);
            for (int i = 0; i < ROUNDS / BATCHES; i++)
            {
                call.run();
            }
            least = Math.min(least, (allocated(threadIds) - before) / (ROUNDS / BATCHES));
        }
        return least;
    }

    private long allocated(final long[] threadIds)
    {
        long sum = 0;
        for (final long id : threadIds)
        {
            sum += Math.max(0, threads.getThreadAllocatedBytes(id));
        }
        return sum;
    }
}

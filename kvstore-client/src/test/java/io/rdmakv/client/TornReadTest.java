package io.rdmakv.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Invariant 1 from the reader's side: while a writer rewrites an extent in place under the reader's feet (so reads
 * really do tear), every GET returns a value that was whole at some instant: never a mix of two writes.
 */
class TornReadTest
{
    private static final int VALUE_LENGTH = 2000;

    @Test
    @Timeout(60)
    void shouldNeverReturnTornValueWhileExtentIsRewritten() throws Exception
    {
        try (LaidOutPoolNode node = new LaidOutPoolNode())
        {
            final byte[] key = "contended".getBytes(StandardCharsets.UTF_8);
            final long entry = node.put("contended", new String(valueFor(0), StandardCharsets.ISO_8859_1));
            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicLong writes = new AtomicLong();
            final Thread writer = new Thread(() ->
            {
                long version = 1;
                while (running.get())
                {
                    final byte[] value = valueFor(version);
                    node.rewriteInPlace(entry, key, value, version);
                    // The node's store always holds a whole value: the RPC fallback answers from it.
                    node.store.put("contended", value);
                    version++;
                    if (writes.incrementAndGet() % 8 == 0)
                    {
                        Thread.yield(); // share the CPU with the reader and the transport
                    }
                }
            }, "in-place-writer");
            writer.start();
            try (KvClient client = node.client().readRetries(3).build())
            {
                final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(1000);
                int reads = 0;
                // At least a second and 50 reads, and on until the writer really rewrote the value under them (a
                // count that must move); the test's timeout bounds a hang.
                while (System.nanoTime() - end < 0 || reads < 50 || writes.get() <= 100)
                {
                    final byte[] value = client.get(key);
                    assertNotNull(value);
                    assertWhole(value);
                    reads++;
                }
                running.set(false);
                writer.join();
                final long torn = client.diagnostics().counters().get(ClientCounter.GET_TORN_RETRIES);
                final long hits = client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS);
                final long fallbacks = client.diagnostics().counters().get(ClientCounter.GET_FALLBACKS);
                assertEquals(reads, hits + fallbacks, "each GET was a verified hit or a fallback");
                assertTrue(writes.get() > 100, "the writer really ran: " + writes.get());
                System.out.printf("reads=%d hits=%d tornRetries=%d fallbacks=%d writes=%d%n", reads, hits, torn,
                    fallbacks, writes.get());
            }
            finally
            {
                running.set(false);
                writer.join();
            }
        }
    }

    /** Every byte of the value is the version's low byte: a mix of two writes shows as two different bytes. */
    private static byte[] valueFor(final long version)
    {
        final byte[] value = new byte[VALUE_LENGTH];
        java.util.Arrays.fill(value, (byte)(version % 251 + 1));
        return value;
    }

    private static void assertWhole(final byte[] value)
    {
        assertEquals(VALUE_LENGTH, value.length);
        for (int i = 1; i < value.length; i++)
        {
            if (value[i] != value[0])
            {
                throw new AssertionError("torn value returned: byte " + i + " is " + value[i] + ", byte 0 is " +
                    value[0]);
            }
        }
    }
}

package io.rdmakv.client;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * With one credit and one pending place per endpoint, the transport answers BACK_PRESSURED all the time: callers'
 * posts must wait, and the progress thread's posts (extent reads, fallback sends) must be re-posted by the conductor.
 * Nothing may fail for it.
 */
class BackPressureTest
{
    private static final int KEYS = 24;
    private static final int THREADS = 3;

    @Test
    @Timeout(60)
    void shouldCompleteEveryRequestWhenTheTransportIsBackPressured() throws Exception
    {
        try (LaidOutPoolNode node = new LaidOutPoolNode())
        {
            for (int i = 0; i < KEYS; i++)
            {
                node.put("key-" + i, "value-" + i);
            }
            node.tear(node.put("torn", "whole")); // every GET of it falls back to RPC from the progress thread
            node.store.put("torn", bytes("whole"));
            try (KvClient client = node.client().maxInFlight(32).readRetries(1)
                .transportProperty("maxInflightPerEndpoint", "1")
                .transportProperty("maxPendingPerEndpoint", "1")
                .build())
            {
                final List<Throwable> errors = new CopyOnWriteArrayList<>();
                final List<Thread> threads = new ArrayList<>();
                for (int t = 0; t < THREADS; t++)
                {
                    final int id = t;
                    threads.add(new Thread(() ->
                    {
                        try
                        {
                            final List<CompletableFuture<byte[]>> gets = new ArrayList<>();
                            for (int i = 0; i < KEYS; i++)
                            {
                                gets.add(client.getAsync(bytes("key-" + i)));
                                if (i % 8 == id) // 3 keys per thread
                                {
                                    client.put(bytes("w-" + id + "-" + i), bytes("x"));
                                    assertArrayEquals(bytes("whole"), client.get(bytes("torn")));
                                }
                            }
                            for (int i = 0; i < KEYS; i++)
                            {
                                assertArrayEquals(bytes("value-" + i), gets.get(i).join());
                            }
                        }
                        catch (final Throwable ex)
                        {
                            errors.add(ex);
                        }
                    }));
                }
                threads.forEach(Thread::start);
                for (final Thread t : threads)
                {
                    t.join();
                }
                assertTrue(errors.isEmpty(), () -> "failed: " + errors);
                assertEquals(THREADS * KEYS, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
                assertEquals(THREADS * 3, client.diagnostics().counters().get(ClientCounter.GET_FALLBACKS));
                assertEquals(0, client.diagnostics().counters().get(ClientCounter.FAILURES));
                assertTrue(client.diagnostics().counters().get(ClientCounter.BACK_PRESSURED_POSTS) > 0,
                    "the transport really pushed back");
            }
        }
    }
}

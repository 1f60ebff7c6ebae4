package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * On shm a one-sided GET's reads complete on return, so the whole GET (cached or not) runs on the caller's thread:
 * a synchronous GET is completed by its caller (counted as a caller completion, no wake-up), and an async GET's future
 * is complete when {@code getAsync} returns, its stages run on the caller. Counted, not timed.
 */
@Timeout(60)
class ShmCallerThreadGetTest
{
    private static final int GETS = 200;

    @TempDir
    Path dir;

    @Test
    void shouldCompleteEveryOneSidedGetOnTheCallersThread() throws Exception
    {
        assumeTrue(new io.rdmakv.transport.shm.ShmTransportProvider().isAvailable(), "shm unavailable here");
        try (KvServer server = InProcessNode.start(dir, Map.of("transport", "shm"));
             KvClient cached = InProcessNode.client(server).transport("shm").build();
             KvClient cold = InProcessNode.client(server).transport("shm").locationCacheEntries(0).build())
        {
            cached.put("k", "v");
            for (final KvClient client : new KvClient[] {cached, cold})
            {
                assertArrayEquals(bytes("v"), client.get("k"), "the first GET maps the node's pool");
                final Map<ClientCounter, Long> before = client.diagnostics().counters();
                for (int i = 0; i < GETS; i++)
                {
                    assertArrayEquals(bytes("v"), client.get("k"));
                }
                final Map<ClientCounter, Long> after = client.diagnostics().counters();
                assertEquals(GETS, delta(before, after, ClientCounter.GET_ONE_SIDED_HITS));
                assertEquals(GETS, delta(before, after, ClientCounter.CALLER_COMPLETIONS),
                    "every GET completed by its caller, none handed back by the progress thread");

                final Thread caller = Thread.currentThread();
                for (int i = 0; i < GETS; i++)
                {
                    final AtomicReference<Thread> stage = new AtomicReference<>();
                    final CompletableFuture<byte[]> f = client.getAsync("k");
                    assertTrue(f.isDone(), "complete when getAsync returns");
                    f.thenRun(() -> stage.set(Thread.currentThread()));
                    assertArrayEquals(bytes("v"), f.join());
                    assertSame(caller, stage.get());
                }
            }
            assertTrue(cached.diagnostics().counters().get(ClientCounter.GET_CACHE_HITS) >= 2L * GETS,
                "the cached client read the extent alone");
        }
    }

    private static long delta(final Map<ClientCounter, Long> before, final Map<ClientCounter, Long> after,
        final ClientCounter counter)
    {
        return after.get(counter) - before.get(counter);
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Over shm a thread blocked on an async PUT's future (or a stage of it) drives the client's progress: the answers it
 * waits for are completed on its own thread (caller completions), where without it every one was handed over by the
 * client's progress thread; with {@code callerDrivenProgress(false)} none is. Counted, not timed: of many waits, at
 * least one finds its answer in its own cycle (each may drive for up to 10 ms), the others are handed over.
 */
@Timeout(60)
class ShmAsyncWaitTest
{
    private static final int PUTS = 200;

    @TempDir
    Path dir;

    @Test
    void shouldCompleteAsyncPutsOnTheThreadWaitingForThem() throws Exception
    {
        assumeTrue(new io.rdmakv.transport.shm.ShmTransportProvider().isAvailable(), "shm unavailable here");
        try (KvServer server = InProcessNode.start(dir, Map.of("transport", "shm"));
             KvClient driving = InProcessNode.client(server).transport("shm").build();
             KvClient parking = InProcessNode.client(server).transport("shm").callerDrivenProgress(false).build())
        {
            assertTrue(callerCompletions(driving) >= 1, "a waiter completed its own PUT");
            assertEquals(0, callerCompletions(parking), "without caller-driven progress every answer is handed over");
            assertArrayEquals(bytes("v" + (PUTS - 1)), driving.get("k" + (PUTS - 1)));
        }
    }

    /** PUTs one at a time, each waited for on a stage of its future; the caller completions they were counted as. */
    private static long callerCompletions(final KvClient client) throws Exception
    {
        final long before = client.diagnostics().counters().get(ClientCounter.CALLER_COMPLETIONS);
        for (int i = 0; i < PUTS; i++)
        {
            final CompletableFuture<Void> put = client.putAsync("k" + i, "v" + i);
            put.thenRun(() -> { }).get(30, TimeUnit.SECONDS);
            assertTrue(put.isDone());
        }
        return client.diagnostics().counters().get(ClientCounter.CALLER_COMPLETIONS) - before;
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

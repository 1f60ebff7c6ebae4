package io.rdmakv.client;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The async API never blocks its caller: against a node that accepts requests and never answers, every async call
 * returns at once, with a future that either waits in the bounded queue or has already failed with back-pressure.
 * On a client whose async calls waited for an in-flight slot, the fifth call would wait for the first request's
 * timeout (a minute here, beyond the test's own timeout).
 */
@Timeout(60)
class AsyncNeverBlocksTest
{
    private static final int IN_FLIGHT = 4;
    private static final int QUEUED = 16;

    @AutoClose
    private final LaidOutPoolNode node = new LaidOutPoolNode();

    @Test
    void shouldReturnFromEveryAsyncCallWhileTheNodeAnswersNothing() throws Exception
    {
        final int calls = 200;
        final List<CompletableFuture<?>> futures = new ArrayList<>();
        final KvClient client = client(Duration.ofMinutes(1));
        try
        {
            node.silent = true;
            int refusedAtOnce = 0;
            for (int i = 0; i < calls; i++)
            {
                final CompletableFuture<?> f = switch (i % 3)
                {
                    case 0 -> client.getAsync("k" + i);
                    case 1 -> client.putAsync("k" + i, "v");
                    default -> client.deleteAsync(bytes("k" + i));
                };
                futures.add(f);
                if (f.isDone())
                {
                    refusedAtOnce++;
                    assertEquals(KvError.BACK_PRESSURE, failure(f).error());
                    assertInstanceOf(KvBackPressureException.class, failure(f));
                }
            }
            // Every call has returned and the node has answered nothing.
            assertEquals(calls - IN_FLIGHT - QUEUED, refusedAtOnce, "beyond slots + queue: refused at once");
            assertEquals(QUEUED, client.diagnostics().queuedRequests());
            assertEquals(QUEUED, client.diagnostics().counter(ClientCounter.QUEUED_REQUESTS));
            assertEquals(calls - IN_FLIGHT - QUEUED, client.diagnostics().counter(ClientCounter.QUEUE_FULL_REJECTIONS));
            assertEquals(0, client.diagnostics().counter(ClientCounter.TIMEOUTS), "no call waited for a timeout");
            for (int i = 0; i < IN_FLIGHT + QUEUED; i++)
            {
                assertFalse(futures.get(i).isDone(), "call " + i + " is in flight or queued");
            }
            final CompletableFuture<List<byte[]>> multi = client.multiGetAsync("a", "b");
            assertTrue(multi.isDone(), "multiGetAsync with a full queue fails at once");
            assertEquals(KvError.BACK_PRESSURE, failure(multi).error());
            assertTrue(node.requests.get() <= IN_FLIGHT, "only in-flight requests were sent: " + node.requests.get());
        }
        finally
        {
            client.close();
        }
        for (int i = 0; i < IN_FLIGHT; i++)
        {
            final KvError error = failure(futures.get(i)).error();
            assertTrue(error == KvError.CLOSED || error == KvError.CONNECTION_FAILED, "in flight at close: " + error);
        }
        for (int i = IN_FLIGHT; i < IN_FLIGHT + QUEUED; i++)
        {
            assertEquals(KvError.CLOSED, failure(futures.get(i)).error(), "close fails what was queued");
        }
    }

    @Test
    void shouldFailEveryAcceptedAsyncCallWithinItsTimeoutWhileTheNodeAnswersNothing() throws Exception
    {
        try (KvClient client = client(Duration.ofSeconds(1)))
        {
            node.silent = true;
            final List<CompletableFuture<?>> futures = new ArrayList<>();
            for (int i = 0; i < 2 * (IN_FLIGHT + QUEUED); i++)
            {
                futures.add(i % 2 == 0 ? client.putAsync("k" + i, "v") : client.getAsync(bytes("k" + i)));
            }
            int timedOut = 0;
            int refused = 0;
            for (final CompletableFuture<?> f : futures)
            {
                final KvException ex = failure(f);
                if (ex instanceof KvTimeoutException)
                {
                    timedOut++;
                }
                else
                {
                    assertInstanceOf(KvBackPressureException.class, ex);
                    refused++;
                }
            }
            // The first IN_FLIGHT + QUEUED calls always find room (nothing can free a slot before they time out);
            // the exact split of the rest is AsyncNeverBlocksTest's first test (a timeout longer than any stall).
            assertTrue(timedOut >= IN_FLIGHT + QUEUED, "every request in flight or queued timed out: " + timedOut);
            assertEquals(futures.size(), timedOut + refused, "each one failed as one of the two");
            assertInstanceOf(KvTimeoutException.class, failure(client.multiGetAsync("x", "y")),
                "with room again, multiGetAsync times out like any GET");
            assertThrows(KvTimeoutException.class, () -> client.multiGet("x", "y"), "sync multiGet: timeout");
            assertThrows(KvTimeoutException.class, () -> client.put("k", "v"), "sync calls keep their timeout");

            node.silent = false;
            client.put("k", "after");
            assertArrayEquals(bytes("after"), client.get("k"), "the client recovers once the node answers");
        }
    }

    @Test
    void shouldStartQueuedAsyncRequestsInCallOrder() throws Exception
    {
        try (KvClient client = node.client().maxInFlight(1).maxQueuedRequests(1000).build())
        {
            final List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < 500; i++)
            {
                puts.add(client.putAsync("ordered", "v" + i));
            }
            CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0])).get(30, TimeUnit.SECONDS);
            assertArrayEquals(bytes("v499"), node.store.get("ordered"), "the last call's value is the last written");
            assertEquals(0, client.diagnostics().counter(ClientCounter.FAILURES));
            assertEquals(0, client.diagnostics().queuedRequests());
        }
    }

    @Test
    void shouldAllowAsyncCallsFromAFuturesDependentStage() throws Exception
    {
        try (KvClient client = node.client().build())
        {
            final byte[] value = client.putAsync("chained", "value")
                .thenCompose(ignored -> client.getAsync("chained"))
                .get(30, TimeUnit.SECONDS);
            assertArrayEquals(bytes("value"), value);
        }
    }

    private KvClient client(final Duration requestTimeout)
    {
        return node.client().getMode(GetMode.RPC).maxInFlight(IN_FLIGHT).maxQueuedRequests(QUEUED)
            .requestTimeout(requestTimeout).build();
    }

    /** The failure of a future that must fail (bounded wait: every request ends within its timeout). */
    private static KvException failure(final CompletableFuture<?> future) throws Exception
    {
        final ExecutionException ex = assertThrows(ExecutionException.class, () -> future.get(30, TimeUnit.SECONDS));
        return assertInstanceOf(KvException.class, ex.getCause());
    }
}

package io.rdmakv.client;

import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Status;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.ServerSocket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input, refusals, silence and death: every one a clear typed error within its timeout, never a hang. */
@Timeout(30)
class KvClientFailureTest
{
    @AutoClose
    private final LaidOutPoolNode node = new LaidOutPoolNode();

    @Test
    void shouldRejectOversizedKeyAndValueBeforeSending()
    {
        try (KvClient client = node.client().build())
        {
            final IllegalArgumentException key = assertThrows(IllegalArgumentException.class,
                () -> client.get(new byte[ProtocolLimits.MAX_KEY_LENGTH + 1]));
            assertTrue(key.getMessage().contains("exceeds the limit of " + ProtocolLimits.MAX_KEY_LENGTH),
                key.getMessage());
            final IllegalArgumentException value = assertThrows(IllegalArgumentException.class,
                () -> client.put(bytes("k"), new byte[64 * 1024 + 1]));
            assertTrue(value.getMessage().contains("server's limit of 65536"), value.getMessage());
            assertThrows(IllegalArgumentException.class, () -> client.put(new byte[0], bytes("v")));
            final CompletableFuture<byte[]> async = client.getAsync(new byte[ProtocolLimits.MAX_KEY_LENGTH + 1]);
            assertInstanceOf(IllegalArgumentException.class,
                assertThrows(CompletionException.class, async::join).getCause());
            assertEquals(0, node.requests.get(), "nothing oversized may reach the node");
        }
    }

    @Test
    void shouldReportRejectWithServersStatusAndMessage()
    {
        node.reject = new Reject(Status.UNAUTHENTICATED, "credential rejected");
        final KvException ex = assertThrows(KvAuthenticationException.class,
            () -> node.client().secret("wrong").build());
        assertEquals(KvError.AUTHENTICATION_FAILED, ex.error());
        assertTrue(ex.getMessage().contains("credential rejected"), ex.getMessage());
    }

    @Test
    void shouldAttachEveryDataConnectionWithTheWelcomesTicketBeforeAnyRequest()
    {
        try (KvClient client = node.client().build())
        {
            assertEquals(1, node.attaches.get(), "one ATTACH for the one data connection");
            assertEquals(0, node.requests.get(), "nothing but the ATTACH before the first request");
            client.put(bytes("k"), bytes("v"));
            assertEquals(1, node.requests.get());
        }
    }

    @Test
    void shouldReportARefusedAttachAsAnAuthenticationFailure()
    {
        node.attachAnswer = Status.UNAUTHENTICATED;
        final KvException ex = assertThrows(KvAuthenticationException.class, () -> node.client().build());
        assertEquals(KvError.AUTHENTICATION_FAILED, ex.error());
        assertTrue(ex.getMessage().contains("refused the data connection"), ex.getMessage());
    }

    @Test
    void shouldTimeOutWhenAttachIsNeverAnswered()
    {
        node.attachAnswer = null;
        // TIMED_OUT naming ATTACH is the connect timeout's answer (nothing else reports it); the class's @Timeout
        // bounds a hang. No wall-clock bound: a loaded machine may take any time to get there.
        final KvException ex = assertThrows(KvException.class,
            () -> node.client().connectTimeout(Duration.ofMillis(500)).build());
        assertEquals(KvError.TIMED_OUT, ex.error());
        assertTrue(ex.getMessage().contains("ATTACH"), ex.getMessage());
    }

    @Test
    void shouldFailClearlyWhenNoSeedListens() throws Exception
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final KvException ex = assertThrows(KvException.class, () -> KvClient.builder()
            .server("127.0.0.1:" + port).transport("tcp").connectTimeout(Duration.ofSeconds(2)).build());
        assertEquals(KvError.CONNECTION_FAILED, ex.error(), "refused, not timed out");
        assertTrue(ex.getMessage().contains("127.0.0.1:" + port), ex.getMessage());
    }

    @Test
    void shouldTimeOutWhenNodeNeverAnswers()
    {
        try (KvClient client = node.client().requestTimeout(Duration.ofMillis(500)).build())
        {
            node.silent = true;
            final long start = System.nanoTime();
            final KvException ex = assertThrows(KvException.class, () -> client.put(bytes("k"), bytes("v")));
            final long elapsedMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertEquals(KvError.TIMED_OUT, ex.error());
            // It waited for its deadline (a timeout cannot fire early); how much later it fired is the scheduler's.
            assertTrue(elapsedMillis >= 400, "took " + elapsedMillis + " ms");
            final CompletableFuture<Void> async = client.putAsync(bytes("k"), bytes("v"));
            final KvException asyncEx = assertInstanceOf(KvException.class,
                assertThrows(CompletionException.class, async::join).getCause());
            assertEquals(KvError.TIMED_OUT, asyncEx.error());
            assertEquals(2, client.diagnostics().counters().get(ClientCounter.TIMEOUTS));

            node.silent = false;
            client.put(bytes("k"), bytes("after"));
            assertArrayEquals(bytes("after"), node.store.get("k"), "the client recovers once the node answers");
        }
    }

    @Test
    void shouldFailInFlightAndLaterRequestsWhenNodeDies()
    {
        try (KvClient client = node.client().requestTimeout(Duration.ofSeconds(10)).build())
        {
            client.put(bytes("k"), bytes("v"));
            node.silent = true;
            final CompletableFuture<Void> pending = client.putAsync(bytes("k2"), bytes("v2"));
            node.crash();
            final KvException ex = assertInstanceOf(KvException.class,
                assertThrows(CompletionException.class, pending::join).getCause());
            assertEquals(KvError.CONNECTION_FAILED, ex.error(), "connection loss, not a timeout: " + ex.getMessage());

            final KvException later = assertThrows(KvException.class, () -> client.get(bytes("k")));
            assertEquals(KvError.CONNECTION_FAILED, later.error(), later.getMessage());
        }
    }

    @Test
    void shouldFollowRedirectToTheOwningNode()
    {
        try (LaidOutPoolNode owner = new LaidOutPoolNode(2);
             KvClient client = node.client().getMode(GetMode.RPC).build())
        {
            node.wrongNodeTarget = owner.controlAddress().toString();
            client.put(bytes("moved"), bytes("here"));
            assertArrayEquals(bytes("here"), owner.store.get("moved"));
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.REDIRECTS));
            assertArrayEquals(bytes("here"), client.get(bytes("moved")), "later requests go to the owner directly");
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.REDIRECTS));
        }
    }

    @Test
    void shouldCloseTheOldConnectionOfAMovedNodeOnceItsRequestsAreOver() throws InterruptedException
    {
        // Node 1 moves: the same node id answers at another address, and the old process redirects there.
        try (LaidOutPoolNode moved = new LaidOutPoolNode(LaidOutPoolNode.NODE_ID);
             // The shared connection's retirement is the subject: no caller lanes to count beside it.
             KvClient client = node.client().getMode(GetMode.RPC).requestTimeout(Duration.ofSeconds(3)).callerLanes(0)
                 .build())
        {
            client.put(bytes("k"), bytes("before"));
            node.wrongNodeTarget = moved.controlAddress().toString();
            client.put(bytes("k"), bytes("after"));
            assertArrayEquals(bytes("after"), moved.store.get("k"));
            assertEquals(0, node.disconnects.get(),
                "the old connection stays open while requests started on it may still be answered");

            // Closed one request timeout (plus slack) later, handing the endpoint back; the client goes on working.
            final long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (node.disconnects.get() == 0 && System.nanoTime() < giveUp)
            {
                Thread.sleep(20);
            }
            assertEquals(1, node.disconnects.get(), "the retired connection to the old address was closed");
            assertArrayEquals(bytes("after"), client.get(bytes("k")));
            assertEquals(0, moved.disconnects.get(), "the connection to the node's new address stays");
        }
    }

    @Test
    void shouldGiveUpAfterTooManyRedirects()
    {
        try (KvClient client = node.client().maxRedirects(2).build())
        {
            node.wrongNodeTarget = node.controlAddress().toString();
            final KvException ex = assertThrows(KvException.class, () -> client.put(bytes("k"), bytes("v")));
            assertEquals(KvError.TOO_MANY_REDIRECTS, ex.error());
            assertEquals(3, node.requests.get(), "the request and two redirected retries");
        }
    }

    @Test
    void shouldReportGarbageRedirectAsFailure()
    {
        try (KvClient client = node.client().build())
        {
            node.wrongNodeTarget = "not an address";
            final KvException ex = assertThrows(KvException.class, () -> client.delete(bytes("k")));
            assertEquals(KvError.CONNECTION_FAILED, ex.error());
            assertTrue(ex.getMessage().contains("not an address"), ex.getMessage());
        }
    }

    @Test
    void shouldRefuseCallsAfterClose()
    {
        final KvClient client = node.client().build();
        client.close();
        assertEquals(KvError.CLOSED, assertThrows(KvException.class, () -> client.get(bytes("k"))).error());
        client.close();
    }

    @Test
    void shouldRefuseBlockingCallOnProgressThread()
    {
        node.put("a", "1");
        try (KvClient client = node.client().build())
        {
            // An answer can complete the future before thenApply is attached; then the stage runs here, on the
            // test thread, and proves nothing: try until one runs on the progress thread.
            final Thread testThread = Thread.currentThread();
            boolean refused = false;
            for (int attempt = 0; attempt < 1_000 && !refused; attempt++)
            {
                final CompletableFuture<Boolean> nested = client.getAsync(bytes("a")).thenApply(v ->
                {
                    if (Thread.currentThread() == testThread)
                    {
                        return false;
                    }
                    client.get(bytes("a"));
                    return true;
                });
                try
                {
                    assertFalse(nested.join(), "a blocking call on the progress thread must be refused");
                }
                catch (final CompletionException ex)
                {
                    assertInstanceOf(IllegalStateException.class, ex.getCause());
                    refused = true;
                }
            }
            assertTrue(refused, "no dependent stage ran on the progress thread in 1,000 attempts");
        }
    }
}

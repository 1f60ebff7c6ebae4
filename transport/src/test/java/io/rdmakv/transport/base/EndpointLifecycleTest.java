package io.rdmakv.transport.base;

import io.rdmakv.transport.TransportStatus;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The endpoint state machine: its transitions, the refusals each state gives, and one winner per transition. */
class EndpointLifecycleTest
{
    @Test
    void shouldRefuseBeforeConnectAndAfterClose()
    {
        final EndpointLifecycle lifecycle = new EndpointLifecycle();
        assertEquals(TransportStatus.NOT_CONNECTED, lifecycle.refusal());
        assertTrue(lifecycle.connect());
        assertNull(lifecycle.refusal());
        assertEquals(0, lifecycle.refusalSentinel());
        assertTrue(lifecycle.isConnected());

        assertTrue(lifecycle.beginClose(TransportStatus.PEER_FAILED, "peer gone"));
        assertFalse(lifecycle.connect(), "closing is final");
        assertEquals(TransportStatus.NOT_CONNECTED, lifecycle.refusal());
        assertTrue(lifecycle.requestClose());
        assertFalse(lifecycle.requestClose());
        assertEquals(TransportStatus.CLOSED, lifecycle.refusal(), "CLOSED once closed locally");
        assertEquals(TransportStatus.CLOSED.sentinel(), lifecycle.refusalSentinel());
    }

    @Test
    void shouldKeepTheFirstCauseAndFinishOnce()
    {
        final EndpointLifecycle lifecycle = new EndpointLifecycle();
        lifecycle.connect();
        assertFalse(lifecycle.finish(), "only a closing endpoint finishes");
        assertTrue(lifecycle.beginClose(TransportStatus.TRANSPORT_ERROR, "bad frame"));
        assertFalse(lifecycle.beginClose(TransportStatus.CLOSED, "closed locally"));
        assertEquals(TransportStatus.TRANSPORT_ERROR, lifecycle.closeStatus());
        assertEquals("bad frame", lifecycle.closeDetail());
        assertTrue(lifecycle.isClosing());
        assertTrue(lifecycle.finish());
        assertFalse(lifecycle.finish());
        assertEquals(EndpointLifecycle.State.CLOSED, lifecycle.state());
        assertTrue(lifecycle.isClosing());
    }

    @Test
    void shouldRefuseWhileConnectedOnceTheApplicationClosed()
    {
        final EndpointLifecycle lifecycle = new EndpointLifecycle();
        lifecycle.connect();
        lifecycle.requestClose();
        assertEquals(EndpointLifecycle.State.CONNECTED, lifecycle.state(), "the wire is still up");
        assertFalse(lifecycle.isConnected());
        assertEquals(TransportStatus.CLOSED, lifecycle.refusal());
    }

    @Test
    void shouldDeliverConnectedOnceAndNeverAfterDisconnected()
    {
        final EndpointLifecycle lifecycle = new EndpointLifecycle();
        lifecycle.connect();
        assertTrue(lifecycle.claimConnectedDelivery());
        assertFalse(lifecycle.claimConnectedDelivery());

        final EndpointLifecycle late = new EndpointLifecycle();
        late.connect();
        late.beginClose(TransportStatus.PEER_FAILED, "gone");
        late.finish();
        assertFalse(late.claimConnectedDelivery(), "onConnected after onDisconnected");
    }

    @Test
    void shouldLetExactlyOneOfRacingClosersBeginAndFinish() throws Exception
    {
        final int threads = 8;
        for (int round = 0; round < 200; round++)
        {
            final EndpointLifecycle lifecycle = new EndpointLifecycle();
            lifecycle.connect();
            final AtomicInteger began = new AtomicInteger();
            final AtomicInteger finished = new AtomicInteger();
            final CountDownLatch ready = new CountDownLatch(threads);
            final CountDownLatch go = new CountDownLatch(1);
            final Thread[] closers = new Thread[threads];
            for (int i = 0; i < threads; i++)
            {
                final TransportStatus status = i % 2 == 0 ? TransportStatus.CLOSED : TransportStatus.PEER_FAILED;
                closers[i] = new Thread(() ->
                {
                    ready.countDown();
                    try
                    {
                        go.await();
                    }
                    catch (final InterruptedException e)
                    {
                        return;
                    }
                    if (lifecycle.beginClose(status, status.name()))
                    {
                        began.incrementAndGet();
                    }
                    if (lifecycle.finish())
                    {
                        finished.incrementAndGet();
                    }
                });
                closers[i].start();
            }
            ready.await();
            go.countDown();
            for (final Thread t : closers)
            {
                t.join();
            }
            assertEquals(1, began.get(), "one closer begins");
            assertEquals(1, finished.get(), "one closer finishes");
            assertEquals(lifecycle.closeStatus().name(), lifecycle.closeDetail(), "the winner's cause, whole");
        }
    }
}

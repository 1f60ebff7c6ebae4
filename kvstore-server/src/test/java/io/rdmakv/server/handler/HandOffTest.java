package io.rdmakv.server.handler;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.TransportStatus;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A side transport's events reach the request thread in order, copied, and only when it drains them. */
@Timeout(60)
class HandOffTest
{
    private final List<String> seen = new ArrayList<>();
    private final List<Thread> threads = new ArrayList<>();

    private final EndpointHandler recorder = new EndpointHandler()
    {
        @Override
        public void onConnected(final Endpoint endpoint)
        {
            seen.add("connected");
            threads.add(Thread.currentThread());
        }

        @Override
        public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
        {
            seen.add("message " + buffer.getStringWithoutLengthAscii(offset, length));
            threads.add(Thread.currentThread());
        }

        @Override
        public void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
        {
            seen.add("disconnected " + status);
            threads.add(Thread.currentThread());
        }
    };

    private static Endpoint endpoint()
    {
        return (Endpoint)Proxy.newProxyInstance(HandOffTest.class.getClassLoader(), new Class<?>[] {Endpoint.class},
            (proxy, method, args) -> method.getName().equals("hashCode") ? 1 : null);
    }

    @Test
    void shouldReplayEveryEventInOrderOnTheDrainingThreadWithMessagesCopied() throws Exception
    {
        final AtomicInteger wakeUps = new AtomicInteger();
        final HandOff handOff = new HandOff(recorder, wakeUps::incrementAndGet);
        final Endpoint endpoint = endpoint();
        final Thread sideWorker = new Thread(() ->
        {
            handOff.onConnected(endpoint);
            final UnsafeBuffer buffer = new UnsafeBuffer(new byte[8]);
            buffer.putStringWithoutLengthAscii(0, "put-one!");
            handOff.onMessage(endpoint, buffer, 0, 8);
            buffer.putStringWithoutLengthAscii(0, "reused!!"); // the transport reuses its buffer after the call
            handOff.onDisconnected(endpoint, TransportStatus.PEER_FAILED, "gone");
        });
        sideWorker.start();
        sideWorker.join(TimeUnit.SECONDS.toMillis(30));
        assertTrue(seen.isEmpty(), "nothing reaches the handler before the request thread drains");
        assertEquals(3, wakeUps.get(), "each event wakes the request thread");

        assertEquals(3, handOff.drain());
        assertEquals(List.of("connected", "message put-one!", "disconnected PEER_FAILED"), seen);
        threads.forEach(t -> assertEquals(Thread.currentThread(), t));
        assertEquals(0, handOff.drain());
    }

    @Test
    void shouldHoldASideWorkerWhileTheQueueIsFullUntilTheRequestThreadDrains() throws Exception
    {
        final Endpoint endpoint = endpoint();
        final CountDownLatch full = new CountDownLatch(1);
        final AtomicInteger wakeUps = new AtomicInteger();
        // Wake-ups past one per queued event come only from a producer that found the queue full.
        final HandOff handOff = new HandOff(recorder, () ->
        {
            if (wakeUps.incrementAndGet() > HandOff.CAPACITY + 1)
            {
                full.countDown();
            }
        });
        final Thread sideWorker = new Thread(() ->
        {
            for (int i = 0; i <= HandOff.CAPACITY; i++)
            {
                handOff.onConnected(endpoint);
            }
        });
        sideWorker.start();
        assertTrue(full.await(30, TimeUnit.SECONDS), "the producer of event CAPACITY + 1 waits for room");
        assertTrue(sideWorker.isAlive(), "held, not dropped");
        int drained = 0;
        while (drained <= HandOff.CAPACITY)
        {
            drained += handOff.drain();
        }
        sideWorker.join(TimeUnit.SECONDS.toMillis(30));
        assertEquals(HandOff.CAPACITY + 1, drained, "nothing was lost");
        assertEquals(HandOff.CAPACITY + 1, seen.size());
    }
}

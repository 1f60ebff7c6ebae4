package io.rdmakv.transport.tcp;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import io.rdmakv.transport.progress.Progress;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Callers' direct writes ({@link TcpOutbound}, {@code tcp.directWrites}): a caller's batch leaves on its own thread
 * (a count that must move), is off when the property says so, and frames keep their order per sender when the socket
 * fills and the event loop takes over the rest (the receiving loop held by a latch until a sender is back-pressured).
 */
class TcpDirectWritesTest extends TransportConformanceSupport
{
    private static final int HEADER = 8; // sender (i32), sequence (i32)
    private static final int PER_SENDER = 300;

    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }

    @Test
    @Timeout(30)
    void shouldWriteACallersBatchOnTheCallersThread() throws Exception
    {
        final Pair pair = connect(everyPostDirect(), 1);
        sendInOrder(pair, 200);
        assertTrue(((TcpEndpoint)pair.client).directWriteBatches() > 0, "callers wrote batches themselves");
    }

    @Test
    @Timeout(30)
    void shouldLeaveEveryWriteToTheEventLoopWhenOff() throws Exception
    {
        final TransportConfig off = config().toBuilder()
            .property(TcpTransportProvider.PROP_DIRECT_WRITES, "false").build();
        final Pair pair = connect(off, 1);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        for (int i = 0; i < 200; i++)
        {
            message.putInt(0, 0);
            message.putInt(4, i);
            assertTrue(pair.client.send(message, 0, 64, null) >= 0);
        }
        pair.receiver.awaitAll();
        assertEquals(0, ((TcpEndpoint)pair.client).directWriteBatches());
    }

    @Test
    @Timeout(60)
    void shouldKeepEachSendersOrderWhenTheSocketFillsAndTheLoopTakesOver() throws Exception
    {
        final int senders = 3;
        final Pair pair = connect(everyPostDirect(), senders);
        // Hold the receiving node's event loop: it reads nothing, so the client's socket buffers fill.
        final CountDownLatch release = new CountDownLatch(1);
        final CountDownLatch held = new CountDownLatch(1);
        ((TcpWorker)pair.serverWorker).eventLoop().execute(() ->
        {
            held.countDown();
            try
            {
                release.await();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        });
        assertTrue(held.await(10, TimeUnit.SECONDS));
        final int size = Math.min(60_000, pair.maxMessage);
        final Thread[] threads = new Thread[senders];
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        for (int s = 0; s < senders; s++)
        {
            final int sender = s;
            threads[s] = new Thread(() ->
            {
                try
                {
                    final UnsafeBuffer message = new UnsafeBuffer(new byte[size]);
                    for (int i = 0; i < PER_SENDER; i++)
                    {
                        message.putInt(0, sender);
                        message.putInt(4, i);
                        long id;
                        while ((id = pair.client.send(message, 0, size, null)) < 0)
                        {
                            assertEquals(TransportStatus.BACK_PRESSURED.sentinel(), id);
                            release.countDown(); // the socket and the window are full: let the receiver read
                            Thread.yield();
                        }
                    }
                }
                catch (final Throwable t)
                {
                    failure.set(t);
                }
            }, "sender-" + s);
            threads[s].start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        release.countDown();
        assertNull(failure.get());
        pair.receiver.awaitAll();
        assertNull(pair.receiver.disorder.get());
        // The first batch is always written by its caller; it may be the one the full socket cut short (then every
        // later byte is the loop's), so count the direct writes of both kinds.
        final TcpEndpoint client = (TcpEndpoint)pair.client;
        assertTrue(client.directWriteBatches() + client.directWritesCutShort() > 0, "callers wrote batches themselves");
        // The held receiver let the socket fill: at least one direct write left its rest to the loop.
        assertTrue(((TcpEndpoint)pair.client).directWritesCutShort() > 0, "a direct write was cut short");
    }

    @Test
    @Timeout(30)
    void shouldLeavePostsThatFollowADirectWriteCloselyToTheLoopsBatch() throws Exception
    {
        // A gap longer than the test: after the first direct write every post joins a batch the loop writes.
        final Pair pair = connect(config().toBuilder()
            .property(TcpTransportProvider.PROP_DIRECT_WRITE_GAP_MICROS, Integer.toString(60_000_000)).build(), 1);
        sendInOrder(pair, 200);
        assertEquals(1, ((TcpEndpoint)pair.client).directWriteBatches(), "only the first post was written directly");
    }

    /** One sender's {@code count} numbered messages of 64 bytes, back to back; all must arrive, in order. */
    private static void sendInOrder(final Pair pair, final int count) throws InterruptedException
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[64]);
        for (int i = 0; i < count; i++)
        {
            message.putInt(0, 0);
            message.putInt(4, i);
            assertTrue(pair.client.send(message, 0, 64, null) >= 0);
        }
        pair.receiver.awaitAll();
        assertNull(pair.receiver.disorder.get());
    }

    /** Direct writes whatever the gap since the last one and whatever is unanswered. */
    private TransportConfig everyPostDirect()
    {
        return config().toBuilder().property(TcpTransportProvider.PROP_DIRECT_WRITE_GAP_MICROS, "0")
            .property(TcpTransportProvider.PROP_DIRECT_WRITES_WHEN_BUSY, "true").build();
    }

    @Test
    @Timeout(30)
    void shouldLeavePostsToTheLoopWhileEarlierOnesAreUnanswered() throws Exception
    {
        // No gap rule; the receiver never answers: after the first post every one is unanswered-behind.
        final Pair pair = connect(config().toBuilder()
            .property(TcpTransportProvider.PROP_DIRECT_WRITE_GAP_MICROS, "0").build(), 1);
        sendInOrder(pair, 200);
        assertEquals(1, ((TcpEndpoint)pair.client).directWriteBatches(), "only the first post, answered by nothing");
    }

    private Pair connect(final TransportConfig config, final int senders) throws Exception
    {
        // Two transports: the client's and the server's workers on event loops of their own.
        final Transport serverTransport = open(config);
        final Transport clientTransport = open(config);
        final Worker serverWorker = serverTransport.createWorker("server");
        final Worker clientWorker = clientTransport.createWorker("client");
        closeLater(Progress.start(serverWorker, new IdleDuty(), "s", Throwable::printStackTrace));
        closeLater(Progress.start(clientWorker, new IdleDuty(), "c", Throwable::printStackTrace));
        final Receiver receiver = new Receiver(senders, senders == 1 ? 200 : PER_SENDER);
        final Listener listener = closeLater(serverWorker.listen(LOOPBACK, receiver));
        final Endpoint client = clientWorker.connect(new InetSocketAddress("127.0.0.1",
            listener.localAddress().getPort()), (ep, buffer, offset, length) -> { }).get(10, TimeUnit.SECONDS);
        return new Pair(serverWorker, client, receiver, config.maxMessageBytes());
    }

    private record Pair(Worker serverWorker, Endpoint client, Receiver receiver, int maxMessage)
    {
    }


    /** Checks that each sender's sequence numbers arrive in order, without a gap, and counts them. */
    private static final class Receiver implements io.rdmakv.transport.EndpointHandler
    {
        private final ConcurrentHashMap<Integer, Integer> next = new ConcurrentHashMap<>();
        private final AtomicReference<String> disorder = new AtomicReference<>();
        private final CountDownLatch all;

        Receiver(final int senders, final int perSender)
        {
            all = new CountDownLatch(senders * perSender);
        }

        @Override
        public void onMessage(final Endpoint ep, final org.agrona.DirectBuffer buffer, final int offset,
            final int length)
        {
            assertTrue(length >= HEADER);
            final int sender = buffer.getInt(offset);
            final int sequence = buffer.getInt(offset + 4);
            final int expected = next.getOrDefault(sender, 0);
            if (sequence != expected)
            {
                disorder.compareAndSet(null, "sender " + sender + ": got " + sequence + ", expected " + expected);
            }
            next.put(sender, sequence + 1);
            all.countDown();
        }

        void awaitAll() throws InterruptedException
        {
            assertTrue(all.await(30, TimeUnit.SECONDS), "every message must arrive: " + all.getCount() + " missing");
        }
    }
}

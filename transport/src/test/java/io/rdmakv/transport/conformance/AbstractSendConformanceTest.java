package io.rdmakv.transport.conformance;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two-sided sends: exactly once, in order, both directions; size limit; many operations in flight. */
public abstract class AbstractSendConformanceTest extends TransportConformanceSupport
{
    private static final int MESSAGES = 10_000;

    @Test
    @Timeout(60)
    void shouldDeliverNumberedMessagesExactlyOnceAndInOrderInBothDirections() throws Exception
    {
        assumeCapability(TransportCapability.SEND_RECV);
        final Connection c = connect();
        final int max = c.client().transport.capabilities().maxSendBytes();
        c.server().handler.maxMessage = max;
        c.client().handler.maxMessage = max;

        final AtomicReference<Throwable> sendError = new AtomicReference<>();
        final Thread serverSender = new Thread(() -> sendAll(c.serverEndpoint(), max, sendError), "server-sender");
        serverSender.start();
        sendAll(c.clientEndpoint(), max, sendError);
        serverSender.join(TimeUnit.SECONDS.toMillis(50));

        assertNull(sendError.get(), () -> "send failed: " + sendError.get());
        awaitTrue(() -> c.server().handler.messages.get() >= MESSAGES && c.client().handler.messages.get() >= MESSAGES,
            Duration.ofSeconds(40), "all messages to arrive");
        // A fence: one more numbered message each way. Delivery is in order, so when it arrived as the next one,
        // nothing (a duplicate) came between; the handler checks its number.
        final UnsafeBuffer fence = new UnsafeBuffer(ByteBuffer.allocateDirect(max));
        final int fenceLength = encodeMessage(fence, MESSAGES, max);
        assertEquals(TransportStatus.OK, statusOf(c.clientEndpoint().sendAsync(fence, 0, fenceLength)));
        assertEquals(TransportStatus.OK, statusOf(c.serverEndpoint().sendAsync(fence, 0, fenceLength)));
        awaitTrue(() -> c.server().handler.messages.get() > MESSAGES && c.client().handler.messages.get() > MESSAGES,
            Duration.ofSeconds(40), "the fence messages to arrive");
        assertNull(c.server().handler.firstError.get());
        assertNull(c.client().handler.firstError.get());
        assertEquals(MESSAGES + 1, c.server().handler.messages.get());
        assertEquals(MESSAGES + 1, c.client().handler.messages.get());
    }

    private static void sendAll(final Endpoint ep, final int max, final AtomicReference<Throwable> error)
    {
        try
        {
            final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(max));
            final AtomicInteger failures = new AtomicInteger();
            final AtomicReference<TransportStatus> lastFailure = new AtomicReference<>();
            for (int seq = 0; seq < MESSAGES; seq++)
            {
                final int length = encodeMessage(buffer, seq, max);
                long id;
                while ((id = ep.send(buffer, 0, length, (s, r) ->
                {
                    if (s != TransportStatus.OK)
                    {
                        lastFailure.set(s);
                        failures.incrementAndGet();
                    }
                })) == TransportStatus.BACK_PRESSURED.sentinel())
                {
                    backOff();
                }
                if (id < 0)
                {
                    throw new AssertionError("send " + seq + " refused: " + TransportStatus.fromSentinel(id));
                }
            }
            if (failures.get() != 0)
            {
                throw new AssertionError(failures.get() + " sends completed with an error, e.g. " + lastFailure.get());
            }
        }
        catch (final Throwable t)
        {
            error.compareAndSet(null, t);
        }
    }

    @Test
    @Timeout(30)
    void shouldRefuseAMessageLargerThanTheLimit() throws Exception
    {
        assumeCapability(TransportCapability.SEND_RECV);
        final Connection c = connect();
        final int max = c.client().transport.capabilities().maxSendBytes();
        final UnsafeBuffer big = new UnsafeBuffer(ByteBuffer.allocateDirect(max + 1));
        assertEquals(TransportStatus.MESSAGE_TOO_LARGE.sentinel(), c.clientEndpoint().send(big, 0, max + 1, null));
        assertEquals(TransportStatus.OK, statusOf(c.clientEndpoint().sendAsync(big, 0, max)));
        awaitTrue(() -> c.server().handler.messages.get() == 1, Duration.ofSeconds(10), "the max-size message");
    }

    @Test
    @Timeout(60)
    void shouldCompleteTenThousandMixedOperationsInFlight() throws Exception
    {
        assumeCapability(TransportCapability.SEND_RECV);
        final boolean canRead = provider().capabilities().canRead();
        // A small pending queue so that the caller meets BACK_PRESSURED and must retry while the worker progresses.
        final TransportConfig small = config().toBuilder().maxPendingPerEndpoint(64).build();
        final Connection c = connect(small, small);
        final Region region = canRead ? region(c.server().transport, REGION_SIZE) : null;
        final int readSize = 64;
        final UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGES * readSize));
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        final AtomicInteger ok = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final io.rdmakv.transport.CompletionHandler handler = (status, id) ->
            (status == TransportStatus.OK ? ok : failed).incrementAndGet();
        int sends = 0;
        int backPressured = 0;
        for (int i = 0; i < MESSAGES; i++)
        {
            final boolean read = canRead && (i % 2 == 0);
            final int offset = (i * 977) % (REGION_SIZE - readSize);
            long id;
            while (true)
            {
                id = read ?
                    c.clientEndpoint().read(region.base() + offset, region.registration().remoteKey(), readSize,
                        destination, i * readSize, handler) :
                    c.clientEndpoint().send(message, 0, 128, handler);
                if (id != TransportStatus.BACK_PRESSURED.sentinel())
                {
                    break;
                }
                backPressured++;
                backOff();
            }
            assertTrue(id >= 0, "operation " + i + " refused: " + TransportStatus.fromSentinel(id));
            if (!read)
            {
                sends++;
            }
        }
        awaitTrue(() -> ok.get() + failed.get() == MESSAGES, Duration.ofSeconds(40), "all operations to complete");
        assertEquals(0, failed.get());
        final int expectedSends = sends;
        awaitTrue(() -> c.server().handler.messages.get() == expectedSends, Duration.ofSeconds(20), "all messages");
        if (canRead)
        {
            for (int i = 0; i < MESSAGES; i += 2)
            {
                final int offset = (i * 977) % (REGION_SIZE - readSize);
                for (int b = 0; b < readSize; b++)
                {
                    if (destination.getByte(i * readSize + b) != pattern(offset + b))
                    {
                        assertEquals(pattern(offset + b), destination.getByte(i * readSize + b), "read " + i);
                    }
                }
            }
        }
        assertEquals(0, c.clientEndpoint().outstanding());
        System.out.println(provider().name() + ": 10,000 operations, back-pressured " + backPressured + " times");
    }

    @Test
    @Timeout(30)
    void shouldCompleteSendFuturesFromAnyThread() throws Exception
    {
        assumeCapability(TransportCapability.SEND_RECV);
        final Connection c = connect();
        final CompletableFuture<?>[] futures = new CompletableFuture<?>[4];
        final UnsafeBuffer msg = new UnsafeBuffer(new byte[32]);
        final Thread[] threads = new Thread[futures.length];
        for (int t = 0; t < threads.length; t++)
        {
            final int index = t;
            threads[t] = new Thread(() -> futures[index] = c.clientEndpoint().sendAsync(msg, 0, 32));
            threads[t].start();
        }
        for (final Thread t : threads)
        {
            t.join();
        }
        for (final CompletableFuture<?> f : futures)
        {
            assertEquals(TransportStatus.OK, statusOf(f));
        }
        awaitTrue(() -> c.server().handler.messages.get() == futures.length, Duration.ofSeconds(10), "messages");
    }
}

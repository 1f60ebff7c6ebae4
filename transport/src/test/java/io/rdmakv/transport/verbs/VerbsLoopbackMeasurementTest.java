package io.rdmakv.transport.verbs;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Verbs-specific behaviour over a real (or SoftRoCE) device, with the numbers it measures printed: sequential read
 * latency, a doorbell batch of reads, and messages that need fragmentation. Skips with the probe's cause elsewhere.
 */
class VerbsLoopbackMeasurementTest extends TransportConformanceSupport
{
    @Override
    protected TransportProvider provider()
    {
        return new VerbsTransportProvider();
    }

    @Override
    protected TransportConfig config()
    {
        return VerbsTestConfig.adapt(super.config());
    }

    @Test
    @Timeout(120)
    void shouldReadBatchesWithOneDoorbellAndMeasureLatency() throws Exception
    {
        final Connection c = connect();
        final Region region = region(c.server().transport, 1 << 20);
        final Endpoint ep = c.clientEndpoint();
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64 * 32));

        final int reads = 300;
        final long start = System.nanoTime();
        for (int i = 0; i < reads; i++)
        {
            assertEquals(TransportStatus.OK, statusOf(ep.readAsync(region.base() + i * 64L,
                region.registration().remoteKey(), 64, dst, 0)));
        }
        final long perRead = (System.nanoTime() - start) / reads / 1000;
        assertEquals(pattern((reads - 1) * 64 + 63), dst.getByte(63));

        final Endpoint.ReadRequest[] batch = new Endpoint.ReadRequest[32];
        final AtomicInteger ok = new AtomicInteger();
        for (int i = 0; i < batch.length; i++)
        {
            batch[i] = new Endpoint.ReadRequest().set(region.base() + 4096L * i + i, region.registration().remoteKey(),
                64, dst, i * 64, (status, id) ->
                {
                    if (status == TransportStatus.OK)
                    {
                        ok.incrementAndGet();
                    }
                });
        }
        final long batchStart = System.nanoTime();
        assertEquals(batch.length, ep.readBatch(batch, batch.length));
        awaitTrue(() -> ok.get() == batch.length, java.time.Duration.ofSeconds(30), "the batch");
        final long batchMicros = (System.nanoTime() - batchStart) / 1000;
        for (int i = 0; i < batch.length; i++)
        {
            final int remote = 4096 * i + i;
            for (int b = 0; b < 64; b++)
            {
                assertEquals(pattern(remote + b), dst.getByte(i * 64 + b), "batch read " + i + " byte " + b);
            }
        }

        final int max = c.client().transport.capabilities().maxSendBytes();
        c.server().handler.maxMessage = max;
        final UnsafeBuffer msg = new UnsafeBuffer(ByteBuffer.allocateDirect(max));
        final long sendStart = System.nanoTime();
        final int messages = 20;
        for (int seq = 0; seq < messages; seq++)
        {
            final int length = encodeMessage(msg, seq, max);
            assertEquals(TransportStatus.OK, statusOf(ep.sendAsync(msg, 0, length)));
        }
        awaitTrue(() -> c.server().handler.messages.get() == messages, java.time.Duration.ofSeconds(60),
            "fragmented messages");
        final long sendMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sendStart);
        assertEquals(null, c.server().handler.firstError.get());
        System.out.println("verbs loopback: 64 B read " + perRead + " us (sequential), batch of 32 reads " +
            batchMicros + " us, " + messages + " mixed messages incl. fragmented ones in " + sendMillis + " ms");
    }
}

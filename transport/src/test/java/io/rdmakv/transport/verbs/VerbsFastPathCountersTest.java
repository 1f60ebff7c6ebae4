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
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The verbs fast path made visible by its counters ({@link VerbsCounters}), over a real (or SoftRoCE) device, under
 * the store's two shapes of traffic: a one-sided GET (a batch of {@value #READS_PER_GET} RDMA Reads, awaited) and a
 * PUT (a small message; no handler waits for it, as with the store's requests, whose answer is the proof). Each
 * window's counts must move as designed: each GET's reads in one doorbell, one signaled send per
 * {@code verbs.signalInterval} ({@value #SIGNAL_INTERVAL} here), every send up to the QP's inline limit inline,
 * larger ones not, and no system call of the worker's own while its progress thread keeps polling; once a worker
 * whose progress sleeps ({@code verbs.idle=events}) is idle, the counter shows its arms and waits. The windows' counts
 * are printed and, in the SoftRoCE guest, written to {@code $RDMAKV_RESULTS/verbs-counters.properties}. Skips with
 * the probe's cause where verbs is unavailable.
 */
class VerbsFastPathCountersTest extends TransportConformanceSupport
{
    private static final int READS_PER_GET = 3;
    private static final int GETS = 50;
    private static final int PUTS = 40;
    private static final int LARGE_PUTS = 3;
    private static final int SIGNAL_INTERVAL = 8;

    private boolean sleepingProgress;

    @Override
    protected TransportProvider provider()
    {
        return new VerbsTransportProvider();
    }

    @Override
    protected TransportConfig config()
    {
        return VerbsTestConfig.adapt(super.config()).toBuilder()
            .property("verbs.signalInterval", Integer.toString(SIGNAL_INTERVAL))
            .build();
    }

    @Override
    protected boolean progressByModel()
    {
        return sleepingProgress;
    }

    @Test
    @Timeout(180)
    void shouldPostEachGetInOneDoorbellAndSignalAndInlineSendsAsDesigned() throws Exception
    {
        final Connection c = connect();
        final VerbsWorker client = (VerbsWorker)c.client().worker;
        final VerbsWorker server = (VerbsWorker)c.server().worker;
        final Region region = region(c.server().transport, 1 << 16);

        final VerbsCounters beforeGets = client.fastPath.snapshot();
        final VerbsCounters serverBeforeGets = server.fastPath.snapshot();
        gets(c.clientEndpoint(), region, GETS);
        final VerbsCounters getWindow = client.fastPath.snapshot().minus(beforeGets);
        final VerbsCounters serverGetWindow = server.fastPath.snapshot().minus(serverBeforeGets);
        record("get", getWindow);

        assertEquals((long)GETS * READS_PER_GET, getWindow.reads(), "reads posted");
        assertEquals(GETS, getWindow.sendDoorbells(), "one ibv_post_send per GET: " + getWindow);
        assertEquals(READS_PER_GET, getWindow.postsPerDoorbell(), 1e-12, "a GET's reads in one doorbell");
        assertEquals(0, getWindow.sends(), "nothing to send back: the server posted nothing to the client");
        assertEquals((long)GETS * READS_PER_GET, getWindow.completions(), "every read is signaled, nothing else is");
        assertTrue(getWindow.busyPolls() >= 1 && getWindow.busyPolls() <= getWindow.completions(), getWindow::toString);
        assertEquals(0, getWindow.systemCalls(), "the client's progress kept polling: no system call of its own");
        assertEquals(0, serverGetWindow.sendDoorbells() + serverGetWindow.recvDoorbells(),
            "a one-sided GET costs the server no post: " + serverGetWindow);
        assertEquals(0, serverGetWindow.systemCalls());

        final int maxInline = ((VerbsEndpoint)c.clientEndpoint()).qp.maxInline;
        assertTrue(maxInline > 0, "the QP takes inline data (verbs.maxInline, granted " + maxInline + ")");
        final VerbsCounters beforePuts = client.fastPath.snapshot();
        final VerbsCounters serverBeforePuts = server.fastPath.snapshot();
        puts(c, PUTS, maxInline);
        c.server().awaitFullCycle(); // the receives of the last poll batch are re-posted
        final VerbsCounters putWindow = client.fastPath.snapshot().minus(beforePuts);
        final VerbsCounters serverPutWindow = server.fastPath.snapshot().minus(serverBeforePuts);
        record("put", putWindow);
        record("put.server", serverPutWindow);

        assertTrue(putWindow.sends() >= PUTS, "every PUT sent (with any credit message): " + putWindow);
        assertEquals(putWindow.sends() / SIGNAL_INTERVAL, putWindow.signaledSends(),
            "one signaled send per interval (the GETs' reads started the run over): " + putWindow);
        assertTrue(putWindow.signaledShare() <= 1.0 / SIGNAL_INTERVAL, putWindow::toString);
        assertEquals(putWindow.sends(), putWindow.inlineSends(), "every send of at most " + maxInline + " B inline");
        assertEquals(1.0, putWindow.inlineShare(), 1e-12);
        assertEquals(0, putWindow.systemCalls());
        assertTrue(serverPutWindow.recvs() >= PUTS, "the server re-posted each receive consumed: " + serverPutWindow);
        assertTrue(serverPutWindow.recvDoorbells() >= 1 && serverPutWindow.recvDoorbells() <= serverPutWindow.recvs(),
            serverPutWindow::toString);
        assertEquals(0, serverPutWindow.systemCalls());

        final VerbsCounters beforeLarge = client.fastPath.snapshot();
        puts(c, LARGE_PUTS, maxInline + 1);
        final VerbsCounters largeWindow = client.fastPath.snapshot().minus(beforeLarge);
        record("putLarge", largeWindow);
        assertEquals(largeWindow.sends() - LARGE_PUTS, largeWindow.inlineSends(),
            "a send past the inline limit is not inline (credit messages, if any, are): " + largeWindow);

        final VerbsCounters total = client.fastPath.snapshot();
        assertEquals(total.toMap().keySet(), c.client().worker.counters().keySet(), "the worker's counters by name");
        assertEquals(total.reads(), c.client().worker.counters().get("verbs.reads"));
        assertEquals(total.reads(), c.client().transport.counters().get("verbs.reads"), "the transport's one worker");
        write();
    }

    @Test
    @Timeout(180)
    void shouldCountTheSystemCallsOfAWorkerThatSleepsWhenIdle() throws Exception
    {
        sleepingProgress = true;
        final Connection c = connect(config(), config().toBuilder().property("verbs.idle", "events").build());
        final VerbsWorker client = (VerbsWorker)c.client().worker;
        final Region region = region(c.server().transport, 1 << 16);

        final VerbsCounters before = client.fastPath.snapshot();
        gets(c.clientEndpoint(), region, GETS);
        final VerbsCounters getWindow = client.fastPath.snapshot().minus(before);
        record("get.events", getWindow);
        assertEquals(GETS, getWindow.sendDoorbells(), getWindow::toString);
        assertEquals(READS_PER_GET, getWindow.postsPerDoorbell(), 1e-12);

        // Idle now: the progress thread arms the completion channel and sleeps on it and the eventfd.
        final long calls = client.fastPath.snapshot().systemCalls();
        awaitTrue(() -> client.fastPath.snapshot().systemCalls() > calls, Duration.ofSeconds(60),
            "the idle worker's arm and wait counted");
        write();
    }

    /** {@code count} GETs one after the other, each a batch of reads in one call, awaited. */
    private static void gets(final Endpoint ep, final Region region, final int count) throws Exception
    {
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(READS_PER_GET * 128));
        final Endpoint.ReadRequest[] batch = new Endpoint.ReadRequest[READS_PER_GET];
        for (int i = 0; i < batch.length; i++)
        {
            batch[i] = new Endpoint.ReadRequest();
        }
        for (int g = 0; g < count; g++)
        {
            final CountDownLatch done = new CountDownLatch(READS_PER_GET);
            final AtomicInteger failed = new AtomicInteger();
            for (int i = 0; i < READS_PER_GET; i++)
            {
                final int remote = (g * READS_PER_GET + i) * 128 % (1 << 15);
                batch[i].set(region.base() + remote, region.registration().remoteKey(), 128, dst, i * 128,
                    (status, id) ->
                    {
                        if (status != TransportStatus.OK)
                        {
                            failed.incrementAndGet();
                        }
                        done.countDown();
                    });
            }
            assertEquals(READS_PER_GET, ep.readBatch(batch, READS_PER_GET), "GET " + g + " accepted");
            assertTrue(done.await(30, TimeUnit.SECONDS), "GET " + g + " completed");
            assertEquals(0, failed.get(), "GET " + g);
            assertEquals(pattern(((g * READS_PER_GET) * 128 % (1 << 15)) + 5), dst.getByte(5), "GET " + g + " data");
        }
    }

    /** {@code count} messages of {@code size} bytes with no handler, all received by the server. */
    private static void puts(final Connection c, final int count, final int size) throws Exception
    {
        final UnsafeBuffer msg = new UnsafeBuffer(ByteBuffer.allocateDirect(size));
        final int received = c.server().handler.messages.get();
        for (int p = 0; p < count; p++)
        {
            msg.putInt(0, p);
            final long id = c.clientEndpoint().send(msg, 0, size, null);
            assertTrue(id > 0, "PUT " + p + " accepted: " + id);
        }
        awaitTrue(() -> c.server().handler.messages.get() == received + count, Duration.ofSeconds(60),
            count + " messages of " + size + " B at the server");
    }

    private final StringBuilder figures = new StringBuilder();

    private void record(final String window, final VerbsCounters counters)
    {
        counters.toMap().forEach((name, value) ->
            figures.append(window).append('.').append(name.substring("verbs.".length())).append('=')
                .append(value instanceof Double d ? String.format("%.3f", d) : value).append('\n'));
    }

    /** Print the windows' counts; in the guest also append them to $RDMAKV_RESULTS/verbs-counters.properties. */
    private void write() throws Exception
    {
        System.out.print("verbs fast-path counters:\n" + figures);
        final String results = System.getenv("RDMAKV_RESULTS");
        if (results != null)
        {
            java.nio.file.Files.writeString(java.nio.file.Path.of(results, "verbs-counters.properties"),
                figures.toString(), java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        }
    }
}

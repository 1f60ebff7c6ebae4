package io.rdmakv.transport.verbs;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import io.rdmakv.transport.event.EventFdWakeup;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * verbs.idle=events over a real (or SoftRoCE) device, workers driven by {@link io.rdmakv.transport.WorkerProgress}:
 * an idle worker wakes rarely, and a completion wakes a worker that sleeps in {@code poll}. Everything asserted is a
 * count (wake-ups, and which fd ended a wait), never a time. Skips with the probe's cause elsewhere.
 */
class VerbsWakeupTest extends TransportConformanceSupport
{
    /** A polled worker parks at most 100 us: about 10,000 wake-ups a second when idle. */
    private static final long IDLE_WAKEUPS_BOUND = 1_000;

    /** At verbs.idleWaitMs=1 without a back-off an idle worker would wake about 1,000 times a second. */
    private static final long BACKED_OFF_WAKEUPS_BOUND = 100;

    private String idleWaitMs = Integer.toString(VerbsConfig.DEFAULT_IDLE_WAIT_MS);
    private String idleMaxWaitMs;

    @Override
    protected TransportProvider provider()
    {
        return new VerbsTransportProvider();
    }

    @Override
    protected TransportConfig config()
    {
        final TransportConfig.Builder builder = VerbsTestConfig.adapt(super.config()).toBuilder()
            .property("verbs.idleWaitMs", idleWaitMs);
        if (idleMaxWaitMs != null)
        {
            builder.property("verbs.idleMaxWaitMs", idleMaxWaitMs);
        }
        return builder.build();
    }

    @Override
    protected boolean progressByModel()
    {
        return true;
    }

    @Test
    @Timeout(120)
    void shouldWakeRarelyWhenIdle() throws Exception
    {
        assertIdleWakeupsBelow(IDLE_WAKEUPS_BOUND, "verbs.idleWaitMs=" + idleWaitMs);
    }

    @Test
    @Timeout(120)
    void shouldBackOffWhileIdleWaitsFindNothing() throws Exception
    {
        idleWaitMs = "1";
        idleMaxWaitMs = "200";
        assertIdleWakeupsBelow(BACKED_OFF_WAKEUPS_BOUND, "verbs.idleWaitMs=1, verbs.idleMaxWaitMs=200");
    }

    /** Connect, leave both workers idle for about a second, and count how often each woke. */
    private void assertIdleWakeupsBelow(final long bound, final String settings) throws Exception
    {
        final Connection c = connect();
        final EventFdWakeup server = events(c.server());
        final EventFdWakeup client = events(c.client());
        final long start = System.nanoTime();
        final long serverBefore = server.wakeups();
        final long clientBefore = client.wakeups();
        TimeUnit.SECONDS.sleep(1);
        final long serverWakeups = server.wakeups() - serverBefore;
        final long clientWakeups = client.wakeups() - clientBefore;
        // The bound is a rate: a sleep that a loaded machine stretches to several seconds allows as many seconds.
        final long seconds = Math.max(1, (System.nanoTime() - start + 999_999_999L) / 1_000_000_000L);
        System.out.printf("idle wake-ups over %d s at %s: server %d, client %d%n", seconds, settings, serverWakeups,
            clientWakeups);
        assertTrue(serverWakeups < bound * seconds,
            "idle server woke " + serverWakeups + " times in " + seconds + " s");
        assertTrue(clientWakeups < bound * seconds,
            "idle client woke " + clientWakeups + " times in " + seconds + " s");
    }

    @Test
    @Timeout(120)
    void shouldWakeABlockedWorkerWhenItsReadCompletes() throws Exception
    {
        idleWaitMs = "1000"; // no housekeeping wake-up can stand in for the completion's
        final Connection c = connect();
        final Region region = region(c.server().transport, 4096);
        final EventFdWakeup client = events(c.client());
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        for (int i = 0; i < 5; i++)
        {
            awaitBlocking(client);
            final long byChannel = client.sourceWakeups();
            final long bySignal = client.signalWakeups();
            assertEquals(TransportStatus.OK, statusOf(c.clientEndpoint().readAsync(region.base() + 64L * i,
                region.registration().remoteKey(), 64, dst, 0)));
            assertEquals(pattern(64 * i + 63), dst.getByte(63));
            assertTrue(client.sourceWakeups() > byChannel, "the read's completion event woke the client");
            assertEquals(bySignal, client.signalWakeups(), "nothing signalled the client");
        }
    }

    @Test
    @Timeout(120)
    void shouldWakeABlockedWorkerWhenAMessageArrives() throws Exception
    {
        idleWaitMs = "1000";
        final Connection c = connect();
        final EventFdWakeup server = events(c.server());
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(128));
        for (int i = 1; i <= 5; i++)
        {
            awaitBlocking(server);
            final long byChannel = server.sourceWakeups();
            assertEquals(TransportStatus.OK, statusOf(c.clientEndpoint().sendAsync(message, 0, 128)));
            final int expected = i;
            awaitTrue(() -> c.server().handler.messages.get() >= expected, Duration.ofSeconds(60), "message " + i);
            assertTrue(server.sourceWakeups() > byChannel, "the receive completion woke the server");
        }
    }

    private static EventFdWakeup events(final Peer peer)
    {
        assertEquals(ProgressModel.ARMABLE, peer.worker.progressModel(), "verbs.idle=events is the default");
        return ((VerbsWorker)peer.worker).events();
    }

    private static void awaitBlocking(final EventFdWakeup wakeup) throws InterruptedException
    {
        while (!wakeup.isBlocking())
        {
            Thread.sleep(1);
        }
    }
}

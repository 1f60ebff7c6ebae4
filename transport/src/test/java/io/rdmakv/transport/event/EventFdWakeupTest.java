package io.rdmakv.transport.event;

import io.rdmakv.transport.HandOffConsumer;
import io.rdmakv.transport.progress.WakeupIdleStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The eventfd + poll wake-up without a device: the waits use a bound (a minute) far longer than each test's timeout,
 * so a wait that returns proves it was ended by a signal or an event, and the counters say which; nothing here
 * measures time.
 */
class EventFdWakeupTest
{
    private static final long FOREVER = TimeUnit.MINUTES.toNanos(1);

    @Test
    @Timeout(20)
    void shouldWakeABlockedWaiterWhenAnotherThreadSignals() throws Exception
    {
        try (EventFdWakeup wakeup = new EventFdWakeup(null, FOREVER))
        {
            final CompletableFuture<Boolean> woken = CompletableFuture.supplyAsync(() -> wakeup.await(FOREVER));
            awaitBlocking(wakeup);
            wakeup.signal();
            assertTrue(woken.get(10, TimeUnit.SECONDS), "the wait must end by the signal, not the bound");
            assertEquals(1, wakeup.wakeups());
            assertEquals(1, wakeup.signalWakeups());
            assertEquals(3, wakeup.systemCalls(), "the wait's poll, the signal's write and the wait's read");
        }
    }

    @Test
    @Timeout(20)
    void shouldWakeABlockedWaiterWhenTheSourceHasAnEvent() throws Exception
    {
        try (EventFdSource source = new EventFdSource(); EventFdWakeup wakeup = new EventFdWakeup(source, FOREVER))
        {
            wakeup.arm();
            assertEquals(1, source.arms.get());
            final CompletableFuture<Boolean> woken = CompletableFuture.supplyAsync(() -> wakeup.await(FOREVER));
            awaitBlocking(wakeup);
            source.complete();
            assertTrue(woken.get(10, TimeUnit.SECONDS));
            assertEquals(1, wakeup.sourceWakeups());
            assertEquals(1, wakeup.sourceEvents(), "the event is consumed by the wait");
            assertEquals(0, wakeup.signalWakeups());
        }
    }

    @Test
    @Timeout(20)
    void shouldNotBlockWhenTheSignalCameFirst()
    {
        try (EventFdWakeup wakeup = new EventFdWakeup(null, FOREVER))
        {
            wakeup.signal();
            assertTrue(wakeup.await(FOREVER));
            assertEquals(0, wakeup.wakeups(), "a signal seen before the wait means no poll at all");
            assertEquals(0, wakeup.systemCalls(), "nor a write: nobody was blocked when it came");
        }
    }

    @Test
    @Timeout(20)
    void shouldReturnFalseWhenTheBoundEndsTheWait()
    {
        try (EventFdWakeup wakeup = new EventFdWakeup(null, TimeUnit.MILLISECONDS.toNanos(1)))
        {
            assertFalse(wakeup.await(FOREVER), "the wait is capped at maxBlockNanos and nothing woke it");
            assertEquals(1, wakeup.wakeups());
            assertEquals(0, wakeup.signalWakeups());
            assertEquals(1, wakeup.systemCalls(), "the poll alone");
        }
    }

    @Test
    @Timeout(20)
    void shouldIgnoreSignalsAfterClose()
    {
        final EventFdWakeup wakeup = new EventFdWakeup(null, FOREVER);
        wakeup.close();
        wakeup.signal();
        wakeup.close();
        assertFalse(wakeup.await(TimeUnit.MILLISECONDS.toNanos(1)), "a closed wake-up only sleeps its bound");
        assertEquals(0, wakeup.wakeups());
    }

    @Test
    @Timeout(120)
    void shouldNeverLoseAWakeUpAcrossManyHandOffs() throws Exception
    {
        // A producer hands work over one item at a time, every other one only once the consumer blocks (so the
        // blocking path is certainly taken) and the rest at once (so signals race the consumer's spin, arm and
        // block). Waits are bounded by a minute: one lost wake-up would stall past the test's timeout.
        final int handOffs = 2_000;
        try (EventFdWakeup wakeup = new EventFdWakeup(null, FOREVER))
        {
            final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
            final HandOffConsumer consumer = new HandOffConsumer(idle);
            for (int i = 1; i <= handOffs; i++)
            {
                if ((i & 1) == 0)
                {
                    awaitBlocking(wakeup);
                }
                consumer.offer(i);
                wakeup.signal();
                while (consumer.taken() < i)
                {
                    Thread.onSpinWait();
                }
            }
            consumer.stop();
            idle.stopBlocking();
            assertTrue(consumer.join(TimeUnit.SECONDS.toMillis(10)));
            assertEquals(handOffs, consumer.taken());
            // Not one wake-up per blocked hand-off: a signal that lands after the consumer set its blocking flag but
            // before it checked for a signal ends that wait without poll(2) (and leaves the eventfd readable for a
            // later one), and two such writes are read as one. What must hold is that the blocking path was taken
            // and every hand-off got through; a lost wake-up would have stalled this loop past its timeout.
            assertTrue(wakeup.wakeups() > 0, "the consumer blocked in poll(2) at least once: " + wakeup.wakeups());
            assertEquals(wakeup.wakeups(), wakeup.signalWakeups(), "every wait was ended by a signal");
        }
    }

    private static void awaitBlocking(final EventFdWakeup wakeup)
    {
        while (!wakeup.isBlocking())
        {
            Thread.onSpinWait();
        }
    }
}

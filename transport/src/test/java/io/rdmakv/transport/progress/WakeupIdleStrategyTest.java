package io.rdmakv.transport.progress;

import io.rdmakv.transport.WorkerWakeup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The order of the idle steps of an ARMABLE worker: spin, yield, arm, poll once more, and only then block; no re-arm
 * after a wait that timed out; the wait's bound doubling while waits find nothing (a recording wake-up, no kernel).
 */
class WakeupIdleStrategyTest
{
    @Test
    @Timeout(10)
    void shouldArmThenLetTheLoopPollOnceMoreBeforeItBlocks()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        final int beforeArm = WakeupIdleStrategy.SPINS + WakeupIdleStrategy.YIELDS;
        for (int i = 0; i < beforeArm; i++)
        {
            idle.idle(0);
        }
        assertEquals(List.of(), wakeup.calls, "spins and yields first");
        idle.idle(0);
        assertEquals(List.of("arm"), wakeup.calls, "the arm, and no wait in the same idle call");
        idle.idle(0);
        assertEquals(List.of("arm", "await"), wakeup.calls, "the wait only after one more empty poll");
        idle.idle(0);
        assertEquals(List.of("arm", "await", "await"), wakeup.calls,
            "after a wait that timed out the source is still armed: poll, then wait again without arming");
        wakeup.woken = true;
        idle.idle(0);
        idle.idle(0);
        idle.idle(0);
        assertEquals(List.of("arm", "await", "await", "await", "arm", "await"), wakeup.calls,
            "after a wait that an event or signal ended: re-arm, poll, wait");
    }

    @Test
    @Timeout(10)
    void shouldDoubleTheWaitWhileWaitsFindNothingUpToTheCapAndStartOverAfterWork()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        final long first = wakeup.maxBlockNanos();
        final long cap = wakeup.maxIdleBlockNanos();
        idleUntilWaits(idle, wakeup, 7);
        assertEquals(List.of(first, 2 * first, 4 * first, 8 * first, cap, cap, cap), wakeup.timeouts,
            "each empty wait twice as long as the last, up to maxIdleBlockNanos");

        idle.idle(1); // work: start over
        wakeup.timeouts.clear();
        idleUntilWaits(idle, wakeup, 2);
        assertEquals(List.of(first, 2 * first), wakeup.timeouts, "work resets the wait to maxBlockNanos");

        wakeup.woken = true; // a completion or a signal ends the next wait: activity, start over too
        idleUntilWaits(idle, wakeup, 3);
        assertEquals(List.of(first, 2 * first, 4 * first, first, first), wakeup.timeouts);
    }

    @Test
    @Timeout(10)
    void shouldNotBackOffWhenTheWakeupHasNoIdleBound()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        wakeup.idleCap = wakeup.maxBlockNanos();
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        idleUntilWaits(idle, wakeup, 3);
        final long first = wakeup.maxBlockNanos();
        assertEquals(List.of(first, first, first), wakeup.timeouts);
    }

    /** Idle with no work until {@code waits} more waits were asked for. */
    private static void idleUntilWaits(final WakeupIdleStrategy idle, final RecordingWakeup wakeup, final int waits)
    {
        final int target = wakeup.timeouts.size() + waits;
        while (wakeup.timeouts.size() < target)
        {
            idle.idle(0);
        }
    }

    @Test
    @Timeout(10)
    void shouldStartOverAfterWorkSoAWaitAlwaysFollowsAnArmedEmptyPoll()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        final int toArm = WakeupIdleStrategy.SPINS + WakeupIdleStrategy.YIELDS + 1;
        for (int i = 0; i < toArm; i++)
        {
            idle.idle(0);
        }
        idle.idle(3); // the poll after the arm found work: no wait
        for (int i = 0; i < toArm; i++)
        {
            idle.idle(0);
        }
        assertEquals(List.of("arm", "arm"), wakeup.calls);
        idle.idle(0);
        assertEquals(List.of("arm", "arm", "await"), wakeup.calls);
    }

    @Test
    @Timeout(10)
    void shouldWaitUnarmedWithoutSpinningWhileCallersDriveAndArmOnceTheyStop()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        final boolean[] callersDriving = {true};
        idle.skipSpinningWhen(() -> callersDriving[0]);
        idle.idle(0);
        idle.idle(0);
        assertEquals(List.of("await", "await"), wakeup.calls,
            "callers poll for their own work: no spin and no arm, so their completions raise no event here");
        assertEquals(List.of(WakeupIdleStrategy.CALLERS_WAIT_NANOS, WakeupIdleStrategy.CALLERS_WAIT_NANOS),
            wakeup.timeouts, "each wait at most as long as callers count as driving");

        callersDriving[0] = false;
        idle.idle(1);
        final int beforeArm = WakeupIdleStrategy.SPINS + WakeupIdleStrategy.YIELDS;
        for (int i = 0; i < beforeArm; i++)
        {
            idle.idle(0);
        }
        assertEquals(List.of("await", "await"), wakeup.calls, "no callers: spin and yield first, as before");
        idle.idle(0);
        assertEquals(List.of("await", "await", "arm"), wakeup.calls, "then arm before blocking");
        idle.idle(0);
        assertEquals(List.of("await", "await", "arm", "await"), wakeup.calls);
    }

    @Test
    @Timeout(10)
    void shouldReArmAfterCallersStopEvenIfItWasArmedBeforeTheyStarted()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        final boolean[] callersDriving = {false};
        idle.skipSpinningWhen(() -> callersDriving[0]);
        final int toArm = WakeupIdleStrategy.SPINS + WakeupIdleStrategy.YIELDS + 1;
        for (int i = 0; i < toArm; i++)
        {
            idle.idle(0);
        }
        assertEquals(List.of("arm"), wakeup.calls);
        callersDriving[0] = true; // a caller's cycle may take, and disarm, what the arm was for
        idle.idle(0);
        callersDriving[0] = false;
        idle.idle(0);
        assertEquals(List.of("arm", "await", "arm"), wakeup.calls, "armed again before the next block");
    }

    @Test
    @Timeout(10)
    void shouldNeverBlockOnceStopped()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        idle.stopBlocking();
        for (int i = 0; i < 1_000; i++)
        {
            idle.idle(0);
        }
        assertTrue(wakeup.calls.contains("signal"), "stopping wakes a thread that may be blocked");
        assertTrue(!wakeup.calls.contains("await"), "no wait after stopBlocking: " + wakeup.calls);
    }

    @Test
    @Timeout(10)
    void shouldKeepPollingWithinTheWakeupsSpinWindowAndArmOnlyAfterIt()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        wakeup.spinNanos = TimeUnit.HOURS.toNanos(1);
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        final int beyondTheCounts = 100 * (WakeupIdleStrategy.SPINS + WakeupIdleStrategy.YIELDS);
        for (int i = 0; i < beyondTheCounts; i++)
        {
            idle.idle(0);
        }
        assertEquals(List.of(), wakeup.calls, "within the window: poll again, never arm, however many idle calls");
    }

    @Test
    @Timeout(10)
    void shouldArmOnceTheWindowIsOverAndOpenANewWindowAfterWork()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        wakeup.spinNanos = TimeUnit.MILLISECONDS.toNanos(2);
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        final long start = System.nanoTime();
        int idles = idleUntilCalled(idle, wakeup);
        assertTrue(System.nanoTime() - start >= wakeup.spinNanos, "armed only after the window");
        assertTrue(idles > WakeupIdleStrategy.SPINS + WakeupIdleStrategy.YIELDS, "the spins and yields still follow");
        assertEquals(List.of("arm"), wakeup.calls);

        idle.idle(1); // work: a new window
        final long again = System.nanoTime();
        idleUntilCalled(idle, wakeup);
        assertTrue(System.nanoTime() - again >= wakeup.spinNanos, "work starts the window over");
        assertEquals(List.of("arm", "arm"), wakeup.calls);
    }

    @Test
    @Timeout(10)
    void shouldSkipTheWindowWhileCallersDrive()
    {
        final RecordingWakeup wakeup = new RecordingWakeup();
        wakeup.spinNanos = TimeUnit.HOURS.toNanos(1);
        final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
        idle.skipSpinningWhen(() -> true);
        idle.idle(0);
        assertEquals(List.of("await"), wakeup.calls, "callers poll for their own work: no window, no spin");
    }

    /** Idle with no work until the wake-up sees a call; the idle calls it took. */
    private static int idleUntilCalled(final WakeupIdleStrategy idle, final RecordingWakeup wakeup)
    {
        final int calls = wakeup.calls.size();
        int idles = 0;
        while (wakeup.calls.size() == calls)
        {
            idle.idle(0);
            idles++;
        }
        return idles;
    }

    private static final class RecordingWakeup implements WorkerWakeup
    {
        final List<String> calls = new ArrayList<>();
        final List<Long> timeouts = new ArrayList<>();
        boolean woken;
        long idleCap = 12_000_000;
        long spinNanos;

        @Override
        public long spinNanos()
        {
            return spinNanos;
        }

        @Override
        public void signal()
        {
            calls.add("signal");
        }

        @Override
        public void arm()
        {
            calls.add("arm");
        }

        @Override
        public boolean await(final long timeoutNanos)
        {
            calls.add("await");
            timeouts.add(timeoutNanos);
            return woken;
        }

        @Override
        public long maxBlockNanos()
        {
            return 1_000_000;
        }

        @Override
        public long maxIdleBlockNanos()
        {
            return idleCap;
        }

        @Override
        public long wakeups()
        {
            return calls.stream().filter("await"::equals).count();
        }
    }
}

package io.rdmakv.transport;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The order of the idle steps of an ARMABLE worker: spin, yield, arm, poll once more, and only then block. */
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
        idle.idle(0);
        assertEquals(List.of("arm", "await", "arm", "await"), wakeup.calls, "after a wait: re-arm, poll, wait");
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

    private static final class RecordingWakeup implements WorkerWakeup
    {
        final List<String> calls = new ArrayList<>();

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
            return false;
        }

        @Override
        public long maxBlockNanos()
        {
            return 1_000_000;
        }

        @Override
        public long wakeups()
        {
            return calls.stream().filter("await"::equals).count();
        }
    }
}

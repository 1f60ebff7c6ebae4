package io.rdmakv.transport.tcp;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * The event loop's decisions with hosted workers (recording guests, no loop, no kernel): guests polled at every
 * decision; the guests' window only after a guest's work or the answer that followed it, never after tcp traffic
 * alone; arm and poll once more before blocking, and no block when that poll finds work.
 */
class TcpSpinSelectStrategyTest
{
    private static final long HOUR = TimeUnit.HOURS.toNanos(1);

    @Test
    @Timeout(10)
    void shouldBlockAtOnceWithoutGuestsOrWindowAsNettyDoes() throws Exception
    {
        final SelectStrategy strategy = TcpSpinSelectStrategy.factory(0).newSelectStrategy();
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false));
        assertEquals(3, strategy.calculateStrategy(() -> 3, true), "tasks: poll now");
    }

    @Test
    @Timeout(10)
    void shouldPollGuestsAtEveryDecisionAndKeepPollingWithinTheirWindowAfterTheirWork() throws Exception
    {
        final TcpSpinSelectStrategy strategy = strategy();
        final RecordingGuests guests = new RecordingGuests(HOUR);
        strategy.guests(guests);
        guests.work = 1;
        assertEquals(0, strategy.calculateStrategy(() -> 0, false), "guest work: go round, no block");
        guests.work = 0;
        for (int i = 0; i < 1000; i++)
        {
            assertEquals(SelectStrategy.CONTINUE, strategy.calculateStrategy(() -> 0, false), "within the window");
        }
        assertEquals(1001, guests.calls.stream().filter("poll"::equals).count(), "polled at every decision");
        assertEquals(0, guests.calls.stream().filter("arm"::equals).count(), "never armed within the window");
    }

    @Test
    @Timeout(10)
    void shouldNotSpinForGuestsAfterTcpTrafficAloneButArmThenBlock() throws Exception
    {
        final TcpSpinSelectStrategy strategy = strategy();
        final RecordingGuests guests = new RecordingGuests(HOUR);
        strategy.guests(guests);
        final int[] nonBlockingPolls = new int[1];
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> ++nonBlockingPolls[0] + 1, false),
            "tcp sockets ready, no task, no guest work: block at once (the blocking wait returns them at once)");
        assertEquals(0, nonBlockingPolls[0], "no non-blocking epoll_wait before the blocking one");
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false),
            "no guest worked: no window for them; arm, poll once more, block");
        assertEquals(List.of("poll", "arm", "poll", "arm"), guests.calls);
        assertEquals(2, strategy.calculateStrategy(() -> 2, true), "tasks: poll now, then run them");
    }

    @Test
    @Timeout(10)
    void shouldRunTheOwedCycleAtTheNextDecisionThenPollWithoutBlockingWhenItWorked() throws Exception
    {
        final TcpSpinSelectStrategy strategy = strategy();
        final List<String> calls = new ArrayList<>();
        final int[] work = {1};
        assertEquals(true, strategy.owedCycles(() ->
        {
            calls.add("cycle");
            return work[0];
        }));
        assertEquals(false, strategy.owedCycles(() -> 0), "one driver's cycles per loop");
        assertEquals(3, strategy.calculateStrategy(() -> 3, false), "the cycle worked: poll now, no block");
        work[0] = 0;
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 3, false), "nothing owed: block");
        assertEquals(List.of("cycle", "cycle"), calls);
    }

    @Test
    @Timeout(10)
    void shouldNotBlockWhenThePollAfterTheArmFindsWork() throws Exception
    {
        final TcpSpinSelectStrategy strategy = strategy();
        final RecordingGuests guests = new RecordingGuests(0);
        strategy.guests(guests);
        guests.workAfterArm = 1;
        assertEquals(SelectStrategy.CONTINUE, strategy.calculateStrategy(() -> 0, false),
            "a message that landed before the arm: found by the poll after it, no block");
        guests.workAfterArm = 0;
        assertEquals(SelectStrategy.SELECT, strategy.calculateStrategy(() -> 0, false));
        assertEquals(List.of("poll", "arm", "poll", "arm"), guests.calls);
    }

    private static TcpSpinSelectStrategy strategy()
    {
        final SelectStrategy s = TcpSpinSelectStrategy.factory(0).newSelectStrategy();
        assertSame(TcpSpinSelectStrategy.class, s.getClass());
        return (TcpSpinSelectStrategy)s;
    }

    private static final class RecordingGuests implements TcpSpinSelectStrategy.Guests
    {
        final List<String> calls = new ArrayList<>();
        final long spin;
        int work;
        int workAfterArm;
        long cycleWork;

        RecordingGuests(final long spin)
        {
            this.spin = spin;
        }

        @Override
        public int poll()
        {
            calls.add("poll");
            return work;
        }

        @Override
        public int armAndPoll()
        {
            calls.add("arm");
            return workAfterArm;
        }

        @Override
        public long spinNanos()
        {
            return spin;
        }

        @Override
        public long lastCycleWorkNanos()
        {
            return cycleWork;
        }
    }
}

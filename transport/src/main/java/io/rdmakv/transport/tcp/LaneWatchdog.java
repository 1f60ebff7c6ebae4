package io.rdmakv.transport.tcp;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Ends the blocking calls of {@link TcpLane}s at their deadlines: one daemon thread for the JVM, which sleeps until
 * the earliest deadline of a lane that is writing or reading and closes a lane still blocked past it (a blocked
 * {@code read} or {@code write} then returns with an {@link java.nio.channels.AsynchronousCloseException}). A lane
 * blocks in the kernel instead of waiting in a selector: per request a {@code write} and a {@code read}, no
 * {@code epoll_wait}.
 *
 * <pre>
 *   lane: arm(deadline) -> blocking read/write -> disarm()      disarm loses to expire: the call timed out
 *   watchdog: earliest armed deadline -> park until then -> expire every lane past its deadline -> again
 *   a lane arming a deadline earlier than the watchdog's next wake-up unparks it (rare: every call of a client has
 *   the same timeout, so a new deadline is later than the ones already armed)
 * </pre>
 * Nothing armed: the watchdog parks for up to an hour (an arming lane wakes it). Publishing its next wake-up and then
 * reading the lanes' deadlines once more, while a lane writes its deadline and then reads the next wake-up, makes
 * sure one of the two sees the other.
 */
final class LaneWatchdog implements Runnable
{
    static final LaneWatchdog INSTANCE = new LaneWatchdog();

    private static final long IDLE_PARK_NANOS = TimeUnit.HOURS.toNanos(1);

    private final Set<TcpLane> lanes = ConcurrentHashMap.newKeySet();
    private volatile long nextWakeNanos = System.nanoTime() + IDLE_PARK_NANOS;
    private volatile Thread thread;

    private LaneWatchdog()
    {
    }

    /** Watch {@code lane} from now on (until {@link #forget}); starts the thread on first use. */
    void watch(final TcpLane lane)
    {
        lanes.add(lane);
        synchronized (this)
        {
            if (thread == null)
            {
                final Thread t = new Thread(this, "rdmakv-tcp-lane-watchdog");
                t.setDaemon(true);
                t.start();
                thread = t;
            }
        }
    }

    void forget(final TcpLane lane)
    {
        lanes.remove(lane);
    }

    /** A lane armed {@code deadlineNanos} (after it wrote it): wake the watchdog if it would sleep past it. */
    void armed(final long deadlineNanos)
    {
        if (deadlineNanos - nextWakeNanos < 0)
        {
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run()
    {
        while (true)
        {
            final long now = System.nanoTime();
            long next = now + IDLE_PARK_NANOS;
            for (final TcpLane lane : lanes)
            {
                final long deadline = lane.armedDeadline();
                if (deadline == TcpLane.DISARMED)
                {
                    continue;
                }
                if (deadline - now <= 0)
                {
                    lane.expire(deadline);
                }
                else if (deadline - next < 0)
                {
                    next = deadline;
                }
            }
            nextWakeNanos = next;
            if (!armedBefore(next))
            {
                LockSupport.parkNanos(this, next - System.nanoTime());
            }
        }
    }

    /** Whether a lane armed a deadline before {@code next} after the scan read its deadline. */
    private boolean armedBefore(final long next)
    {
        for (final TcpLane lane : lanes)
        {
            final long deadline = lane.armedDeadline();
            if (deadline != TcpLane.DISARMED && deadline - next < 0)
            {
                return true;
            }
        }
        return false;
    }
}

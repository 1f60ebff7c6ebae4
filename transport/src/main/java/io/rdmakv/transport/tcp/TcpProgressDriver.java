package io.rdmakv.transport.tcp;

import io.netty.channel.EventLoop;
import io.netty.channel.IoEventLoop;
import io.netty.channel.epoll.EpollIoHandle;
import io.netty.util.concurrent.ScheduledFuture;
import io.netty.util.concurrent.SingleThreadEventExecutor;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Drives an event-driven {@link TcpWorker} from its own Netty event loop: the loop already runs the endpoints'
 * callbacks inline as it reads; this adds the duty cycle (the worker's timers, then the application's duty agent):
 * <pre>
 *   the timer (interval, or longer while idle)     --\
 *   signal() from any thread (one task per burst) --+-->  cycle(): worker.progressCycle(); duty.doWork();
 *   a cycle that found work (more may be waiting) --/            work > 0 ? signal() : sleep in epoll_wait
 * </pre>
 * The timer runs every interval while cycles find work; each timer cycle in a row that finds none, with no cycle
 * that found some in between, doubles the wait before the next one, up to {@value #IDLE_BACKOFF_FACTOR} times the
 * interval ({@link #nextTimerNanos}). An idle node's loop woke 1,000 times a second for nothing (about 4% of a core
 * on this project's hosts); now about 31 times. Every duty the timer serves tolerates that lateness (see
 * {@link WorkerProgress}: the ARMABLE workers' idle waits are longer still); work that must not wait signals (a
 * write batch's first PUT, a durable write, a hand-off from another thread), and a cycle that finds work puts the
 * timer back to the interval.
 * Guests ({@link #host}): ARMABLE workers of other transports progressed on this loop too ({@link TcpHostedWorker});
 * every cycle polls them, and so does the loop's select strategy at each decision and before it blocks.
 * A signal from the loop itself is scheduled (due at once) rather than queued as a task, so the loop polls its
 * sockets before the next cycle: a duty that keeps finding work (a send retried while back-pressured) can never
 * starve the reads that would relieve it.
 * On a loop whose select strategy takes them ({@link TcpSpinSelectStrategy.OwedCycle}, one driver per loop), the
 * cycle a cycle owes (it found work, or something signalled during it) runs at the loop's next decision instead of
 * as a scheduled task, and a signal from a callback on the loop is a plain task run after the I/O in hand: per PUT
 * that saved a scheduled task and one non-blocking {@code epoll_wait}.
 * The event loop sleeps in {@code epoll_wait} until a socket, a task or a timer needs it: the wake-up source a
 * polled worker lacks. {@link #signal()} costs one CAS when a cycle is already scheduled and one {@code execute}
 * (an eventfd write when the loop sleeps) otherwise.
 */
final class TcpProgressDriver implements WorkerProgress, TcpSpinSelectStrategy.Guests, TcpSpinSelectStrategy.OwedCycle
{
    /** Timer cycles wait at most this many intervals while idle. */
    static final int IDLE_BACKOFF_FACTOR = 32;

    private final TcpWorker worker;
    private final EventLoop loop;
    private final Agent duty;
    private final long intervalNanos;
    private final ErrorHandler errors;
    /** Loop thread only: the wait before the next timer cycle, and whether any cycle found work since the last one. */
    private long timerNanos;
    private boolean workedSinceTimer;
    private final Runnable timerCycle = this::timerCycle;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable signalledCycle = this::signalledCycle;
    private volatile ScheduledFuture<?> timer;
    private volatile boolean closed;
    /** Loop thread only: the hosted workers, and when the last cycle that found work ended. */
    private TcpHostedWorker[] guests = new TcpHostedWorker[0];
    private long lastCycleWorkNanos;
    /**
     * Loop thread only: whether this loop's select strategy runs the cycles this driver owes ({@link #runOwed}); a
     * cycle is running; a cycle is owed (one found work, or a signal came from within one).
     */
    private boolean owesToStrategy;
    private boolean inCycle;
    private boolean owed;

    TcpProgressDriver(final TcpWorker worker, final Agent duty, final Duration interval, final ErrorHandler errors)
    {
        if (interval.isNegative() || interval.isZero())
        {
            throw new IllegalArgumentException("timer interval must be positive: " + interval);
        }
        this.worker = worker;
        this.loop = worker.eventLoop();
        this.duty = duty;
        this.intervalNanos = interval.toNanos();
        this.errors = errors;
    }

    void start()
    {
        loop.execute(() ->
        {
            final TcpSpinSelectStrategy strategy = TcpSpinSelectStrategy.onThisLoop();
            owesToStrategy = strategy != null && strategy.owedCycles(this);
            try
            {
                duty.onStart();
            }
            catch (final Throwable t)
            {
                errors.onError(t);
            }
        });
        timerNanos = intervalNanos;
        timer = loop.schedule(timerCycle, intervalNanos, TimeUnit.NANOSECONDS);
    }

    /**
     * The wait before the next timer cycle: the interval after work (a timer cycle's or any other since the last),
     * else twice the last wait, at most {@value #IDLE_BACKOFF_FACTOR} intervals.
     */
    static long nextTimerNanos(final long lastNanos, final long intervalNanos, final boolean worked)
    {
        return worked ? intervalNanos : Math.min(lastNanos * 2, intervalNanos * IDLE_BACKOFF_FACTOR);
    }

    private void timerCycle()
    {
        if (closed)
        {
            return;
        }
        final boolean worked = cycle() > 0 || workedSinceTimer;
        workedSinceTimer = false;
        timerNanos = nextTimerNanos(timerNanos, intervalNanos, worked);
        try
        {
            timer = loop.schedule(timerCycle, timerNanos, TimeUnit.NANOSECONDS);
        }
        catch (final RejectedExecutionException ex)
        {
            // shutting down: no more cycles
        }
    }

    @Override
    public boolean isProgressThread()
    {
        return loop.inEventLoop();
    }

    @Override
    public void signal()
    {
        if (closed)
        {
            return;
        }
        if (owesToStrategy && loop.inEventLoop())
        {
            if (inCycle)
            {
                owed = true; // the strategy runs it at the loop's next decision
                return;
            }
            // From a callback (a PUT read from a socket): a task, run after the I/O in hand, in this turn's task round
            // (no scheduled task: no allocation, no extra epoll_wait for a due timer).
            if (!scheduled.get() && scheduled.compareAndSet(false, true))
            {
                try
                {
                    loop.execute(signalledCycle);
                }
                catch (final RejectedExecutionException ex)
                {
                    scheduled.set(false); // shutting down
                }
            }
            return;
        }
        if (scheduled.compareAndSet(false, true))
        {
            try
            {
                if (loop.inEventLoop())
                {
                    // From the loop itself (a cycle that found work, a deferral by a callback): after the I/O that is
                    // ready. A plain task would run in this same task round and, re-signalling, starve reads.
                    loop.schedule(signalledCycle, 0, TimeUnit.NANOSECONDS);
                }
                else
                {
                    loop.execute(signalledCycle);
                }
            }
            catch (final RejectedExecutionException ex)
            {
                scheduled.set(false); // shutting down
            }
        }
    }

    private void signalledCycle()
    {
        scheduled.set(false);
        if (cycle() > 0)
        {
            workedSinceTimer = true;
        }
    }

    @Override
    public int runOwed()
    {
        if (!owed || closed)
        {
            return 0;
        }
        owed = false;
        final int work = cycle();
        if (work > 0)
        {
            workedSinceTimer = true;
            return work;
        }
        return loop instanceof SingleThreadEventExecutor executor && executor.pendingTasks() > 0 ? 1 : 0;
    }

    /** One duty cycle; returns the work done. */
    private int cycle()
    {
        if (closed)
        {
            return 0;
        }
        inCycle = true;
        try
        {
            return cycleBody();
        }
        finally
        {
            inCycle = false;
        }
    }

    private int cycleBody()
    {
        int work = poll();
        try
        {
            work += worker.progressCycle();
        }
        catch (final Throwable t)
        {
            errors.onError(t);
        }
        try
        {
            work += duty.doWork();
        }
        catch (final Throwable t)
        {
            errors.onError(t);
        }
        if (work > 0)
        {
            lastCycleWorkNanos = System.nanoTime();
            if (owesToStrategy)
            {
                owed = true; // more may be waiting: the strategy runs the next cycle at the loop's next decision
            }
            else
            {
                signal(); // more may be waiting; go round again after the I/O that is ready
            }
        }
        return work;
    }

    /**
     * Progress {@code guest} on this loop: ARMABLE workers whose wake-up can be hosted, on native epoll (whose loop
     * watches their descriptors); otherwise null.
     */
    @Override
    public WorkerProgress host(final Worker guest, final ErrorHandler guestErrors)
    {
        if (closed || guest.progressModel() != ProgressModel.ARMABLE || !(loop instanceof IoEventLoop io) ||
            !io.isCompatible(EpollIoHandle.class))
        {
            return null;
        }
        final TcpHostedWorker hosted;
        try
        {
            hosted = new TcpHostedWorker(guest, guestErrors);
        }
        catch (final UnsupportedOperationException ex)
        {
            return null;
        }
        guest.wakeup().hostBy(this::signal);
        final io.netty.util.concurrent.Future<?> added = loop.submit(() ->
        {
            final TcpSpinSelectStrategy strategy = TcpSpinSelectStrategy.onThisLoop();
            if (strategy == null)
            {
                throw new IllegalStateException("event loop " + loop + " has no rdmakv select strategy");
            }
            hosted.register(io);
            guests = append(guests, hosted);
            strategy.guests(this);
        });
        if (!added.awaitUninterruptibly(10_000) || !added.isSuccess())
        {
            throw new IllegalStateException("could not host " + guest.roleName() + " on " + loop + ": " +
                added.cause(), added.cause());
        }
        signal();
        return new HostedProgress(hosted);
    }

    private static TcpHostedWorker[] append(final TcpHostedWorker[] all, final TcpHostedWorker one)
    {
        final TcpHostedWorker[] more = Arrays.copyOf(all, all.length + 1);
        more[all.length] = one;
        return more;
    }

    @Override
    public int poll()
    {
        int work = 0;
        for (final TcpHostedWorker g : guests)
        {
            work += g.poll();
        }
        return work;
    }

    @Override
    public int armAndPoll()
    {
        int work = 0;
        for (final TcpHostedWorker g : guests)
        {
            work += g.armAndPoll();
        }
        return work;
    }

    @Override
    public long spinNanos()
    {
        long spin = 0;
        for (final TcpHostedWorker g : guests)
        {
            spin = Math.max(spin, g.spinNanos());
        }
        return spin;
    }

    @Override
    public long lastCycleWorkNanos()
    {
        return lastCycleWorkNanos;
    }

    /** Stop hosting {@code hosted} and close its worker, on the loop (or here once the loop is gone). */
    private void unhost(final TcpHostedWorker hosted)
    {
        final Runnable remove = () ->
        {
            hosted.unregister();
            guests = Arrays.stream(guests).filter(g -> g != hosted).toArray(TcpHostedWorker[]::new);
            if (guests.length == 0)
            {
                final TcpSpinSelectStrategy strategy = TcpSpinSelectStrategy.onThisLoop();
                if (strategy != null)
                {
                    strategy.guests(null);
                }
            }
            hosted.guest().close();
        };
        if (loop.inEventLoop() || loop.isShuttingDown())
        {
            remove.run();
            return;
        }
        try
        {
            loop.submit(remove).awaitUninterruptibly(10_000);
        }
        catch (final RejectedExecutionException ex)
        {
            remove.run();
        }
    }

    /** The progress of a hosted worker: the host's thread, signals and cycles; closing unhosts and closes it. */
    private final class HostedProgress implements WorkerProgress
    {
        private final TcpHostedWorker hosted;
        private boolean closedHere;

        HostedProgress(final TcpHostedWorker hosted)
        {
            this.hosted = hosted;
        }

        @Override
        public boolean isProgressThread()
        {
            return loop.inEventLoop();
        }

        @Override
        public void signal()
        {
            TcpProgressDriver.this.signal();
        }

        @Override
        public synchronized void close()
        {
            if (!closedHere)
            {
                closedHere = true;
                unhost(hosted);
            }
        }

        @Override
        public String toString()
        {
            return "HostedProgress{" + hosted.guest().roleName() + " on " + TcpProgressDriver.this + '}';
        }
    }

    /** Stop the cycles, close the worker, then the duty agent: on the event loop, waiting for it from elsewhere. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        if (loop.inEventLoop() || loop.isShuttingDown())
        {
            closeOnLoop();
            return;
        }
        try
        {
            loop.submit(this::closeOnLoop).awaitUninterruptibly(10_000);
        }
        catch (final RejectedExecutionException ex)
        {
            closeOnLoop();
        }
    }

    private void closeOnLoop()
    {
        final TcpSpinSelectStrategy strategy = TcpSpinSelectStrategy.onThisLoop();
        if (strategy != null)
        {
            strategy.noOwedCycles(this);
        }
        owesToStrategy = false;
        if (timer != null)
        {
            timer.cancel(false);
        }
        try
        {
            worker.close();
        }
        catch (final Throwable t)
        {
            errors.onError(t);
        }
        try
        {
            duty.onClose();
        }
        catch (final Throwable t)
        {
            errors.onError(t);
        }
    }

    @Override
    public String toString()
    {
        return "TcpProgressDriver{" + worker + '}';
    }
}

package io.rdmakv.transport.progress;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerWakeup;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;

/**
 * Fakes for {@link CallerDrivenProgressTest}: a worker with no transport whose cycles can be held open on a chosen
 * thread, a wake-up that only a signal or its bound ends, a duty that detects overlapping cycles, and an idle strategy
 * that can park the progress thread outside any cycle. Together they let a test force an interleaving instead of
 * hoping the scheduler produces it.
 */
final class ProgressFakes
{
    /** How long a fake waits for the test to release it before it gives up (the test's own timeout is longer). */
    static final long HOLD_SECONDS = 30;

    private ProgressFakes()
    {
    }

    /** True for the threads the tests start as callers (named {@code caller-*}). */
    static boolean isCaller(final Thread thread)
    {
        return thread.getName().startsWith("caller-");
    }

    /** Waits for {@code latch}, failing the test after {@link #HOLD_SECONDS}. */
    static void await(final CountDownLatch latch, final String what) throws InterruptedException
    {
        if (!latch.await(HOLD_SECONDS, TimeUnit.SECONDS))
        {
            throw new AssertionError("timed out waiting until " + what);
        }
    }

    /** Holds the next cycle entered by a thread that {@code who} accepts inside the worker until released. */
    static final class CyclePause
    {
        final Predicate<Thread> who;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        volatile Thread thread;

        CyclePause(final Predicate<Thread> who)
        {
            this.who = who;
        }

        void awaitEntered() throws InterruptedException
        {
            await(entered, "a held cycle was entered");
        }
    }

    /** Counts entries into a cycle that another thread is already in. */
    static final class OverlapDetector implements Agent
    {
        final AtomicInteger inCycle;
        final AtomicInteger overlaps = new AtomicInteger();

        OverlapDetector(final AtomicInteger inCycle)
        {
            this.inCycle = inCycle;
        }

        @Override
        public int doWork()
        {
            // The worker entered the cycle (inCycle = 1 from its doWork); nobody else may be in it.
            if (inCycle.get() != 1)
            {
                overlaps.incrementAndGet();
            }
            Thread.onSpinWait();
            if (inCycle.decrementAndGet() != 0)
            {
                overlaps.incrementAndGet();
            }
            return 0;
        }

        @Override
        public String roleName()
        {
            return "overlap-detector";
        }
    }

    /**
     * The model's own idle strategy, in front of which the progress thread can be parked (outside any cycle: the
     * runner idles between cycles) until released. A held idle call returns without idling, so the thread goes
     * straight on to its next cycle.
     */
    static final class GatedIdle implements IdleStrategy
    {
        private IdleStrategy delegate;
        private final CountDownLatch parked = new CountDownLatch(1);
        private volatile boolean held;
        private volatile Thread waiter;

        GatedIdle(final boolean held)
        {
            this.held = held;
        }

        /** The idle strategy behind the gate; before the progress thread starts. */
        void delegateTo(final IdleStrategy idle)
        {
            this.delegate = idle;
        }

        /** Waits until the progress thread is parked here, and returns it. */
        Thread awaitParked() throws InterruptedException
        {
            await(parked, "the progress thread parked between cycles");
            return waiter;
        }

        void release()
        {
            held = false;
            final Thread t = waiter;
            if (t != null)
            {
                LockSupport.unpark(t);
            }
        }

        @Override
        public void idle(final int workCount)
        {
            if (gate())
            {
                delegate.idle(workCount);
            }
        }

        @Override
        public void idle()
        {
            if (gate())
            {
                delegate.idle();
            }
        }

        @Override
        public void reset()
        {
            delegate.reset();
        }

        /** Parks while held (its blocker is this gate, never a lock); false when it did, so no idling follows. */
        private boolean gate()
        {
            if (!held)
            {
                return true;
            }
            waiter = Thread.currentThread();
            parked.countDown();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HOLD_SECONDS);
            while (held && deadline - System.nanoTime() > 0)
            {
                LockSupport.parkNanos(this, deadline - System.nanoTime());
            }
            held = false;
            return false;
        }
    }

    /**
     * A worker with no transport: its doWork marks the cycle entered (the duty marks it left), holds the cycle open
     * when a {@link CyclePause} is set for the thread, runs a completion handed to it, and with {@code busy} reports
     * work so that the progress thread never idles.
     */
    static final class FakeWorker implements Worker
    {
        final ProgressModel model;
        final FakeWakeup wakeup;
        final AtomicInteger inCycle = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger maxDepth = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        final AtomicInteger cyclesAfterClose = new AtomicInteger();
        final AtomicLong progressThreadCycles = new AtomicLong();
        final AtomicLong callerThreadCycles = new AtomicLong();
        final CountDownLatch firstProgressThreadCycle = new CountDownLatch(1);
        final AtomicInteger pauseTimeouts = new AtomicInteger();
        volatile boolean busy;
        volatile Runnable completion;
        volatile CyclePause pause;
        private volatile boolean closed;
        private int depth;

        FakeWorker(final ProgressModel model, final long blockNanos)
        {
            this.model = model;
            this.wakeup = new FakeWakeup(blockNanos);
        }

        @Override
        public int doWork() throws InterruptedException
        {
            if (inCycle.getAndIncrement() != 0)
            {
                overlaps.incrementAndGet();
            }
            if (closed)
            {
                cyclesAfterClose.incrementAndGet();
            }
            if (isCaller(Thread.currentThread()))
            {
                callerThreadCycles.incrementAndGet();
            }
            else
            {
                progressThreadCycles.incrementAndGet();
                firstProgressThreadCycle.countDown();
            }
            holdIfPaused();
            depth++;
            maxDepth.accumulateAndGet(depth, Math::max);
            try
            {
                final Runnable c = completion;
                if (c != null)
                {
                    completion = null;
                    c.run();
                    return 1;
                }
                return busy || isCaller(Thread.currentThread()) ? 1 : 0;
            }
            finally
            {
                depth--;
            }
        }

        private void holdIfPaused() throws InterruptedException
        {
            final CyclePause p = pause;
            if (p != null && p.who.test(Thread.currentThread()))
            {
                pause = null;
                p.thread = Thread.currentThread();
                p.entered.countDown();
                if (!p.release.await(HOLD_SECONDS, TimeUnit.SECONDS))
                {
                    pauseTimeouts.incrementAndGet();
                }
            }
        }

        @Override
        public ProgressModel progressModel()
        {
            return model;
        }

        @Override
        public WorkerWakeup wakeup()
        {
            return wakeup;
        }

        @Override
        public Listener listen(final InetSocketAddress bindAddress, final EndpointHandler handler)
        {
            throw new UnsupportedOperationException("fake worker");
        }

        @Override
        public CompletableFuture<Endpoint> connect(final InetSocketAddress remoteAddress,
            final EndpointHandler handler)
        {
            throw new UnsupportedOperationException("fake worker");
        }

        @Override
        public Transport transport()
        {
            throw new UnsupportedOperationException("fake worker");
        }

        @Override
        public void close()
        {
            closed = true;
            closes.incrementAndGet();
        }

        @Override
        public String roleName()
        {
            return "fake-worker";
        }
    }

    /** Blocks (parks) until signalled or its bound passes; no completion can wake it. */
    static final class FakeWakeup implements WorkerWakeup
    {
        final AtomicLong returns = new AtomicLong();
        private final long blockNanos;
        private final CountDownLatch blocked = new CountDownLatch(1);
        private volatile Thread waiter;
        private volatile boolean signalled;
        volatile boolean blocking;

        FakeWakeup(final long blockNanos)
        {
            this.blockNanos = blockNanos;
        }

        /** Waits until the progress thread blocks here for the first time. */
        void awaitBlocking() throws InterruptedException
        {
            ProgressFakes.await(blocked, "the progress thread blocked on its wake-up");
        }

        @Override
        public void signal()
        {
            signalled = true;
            final Thread t = waiter;
            if (t != null)
            {
                LockSupport.unpark(t);
            }
        }

        @Override
        public void arm()
        {
        }

        @Override
        public boolean await(final long timeoutNanos)
        {
            waiter = Thread.currentThread();
            blocking = true;
            blocked.countDown();
            final long deadline = System.nanoTime() + timeoutNanos;
            while (!signalled && deadline - System.nanoTime() > 0)
            {
                LockSupport.parkNanos(this, deadline - System.nanoTime());
            }
            blocking = false;
            waiter = null;
            final boolean woken = signalled;
            signalled = false;
            returns.incrementAndGet();
            return woken;
        }

        @Override
        public long maxBlockNanos()
        {
            return blockNanos;
        }

        @Override
        public long wakeups()
        {
            return returns.get();
        }
    }
}

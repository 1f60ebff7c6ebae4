package io.rdmakv.transport;

import org.agrona.concurrent.Agent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link WorkerProgress#tryProgress()} over fake POLLED and ARMABLE workers (no device): callers and the progress
 * thread never run a duty cycle at once, a caller completes its own request while the progress thread sleeps, a
 * nested call runs no cycle, and closing stops callers. Counts and threads are asserted, never times.
 */
class CallerDrivenProgressTest
{
    private final List<WorkerProgress> started = new ArrayList<>();
    private final AtomicReference<Throwable> errors = new AtomicReference<>();

    @AfterEach
    void closeAll()
    {
        started.forEach(WorkerProgress::close);
    }

    @ParameterizedTest
    @EnumSource(value = ProgressModel.class, names = {"POLLED", "ARMABLE"})
    @Timeout(60)
    void shouldNeverRunACycleOnTwoThreadsAtOnce(final ProgressModel model) throws Exception
    {
        final FakeWorker worker = new FakeWorker(model, Long.MAX_VALUE / 4);
        worker.busy = true; // the progress thread cycles without idling: the lock is contended all the time
        final OverlapDetector duty = new OverlapDetector(worker.inCycle);
        final WorkerProgress progress = start(worker, duty);
        final int callers = 3;
        final int attemptsEach = 20_000;
        final AtomicLong ranByCallers = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < callers; t++)
        {
            final Thread thread = new Thread(() ->
            {
                for (int i = 0; i < attemptsEach; i++)
                {
                    final int work = progress.tryProgress();
                    if (work > 0)
                    {
                        ranByCallers.incrementAndGet();
                    }
                    assertFalse(progress.isProgressThread(), "a caller is the progress thread only inside a cycle");
                }
            }, "caller-" + t);
            threads.add(thread);
            thread.start();
        }
        for (final Thread thread : threads)
        {
            thread.join();
        }
        progress.close();
        assertEquals(0, worker.overlaps.get() + duty.overlaps.get(), "two threads were inside a duty cycle at once");
        assertTrue(ranByCallers.get() > 0, "callers ran cycles of their own");
        assertEquals(ranByCallers.get(), progress.callerCycles(), "every cycle a caller ran is counted");
        assertTrue(worker.progressThreadCycles.get() > 0, "the progress thread ran cycles too");
        assertEquals(null, errors.get());
    }

    @Test
    @Timeout(60)
    void shouldLetACallerCompleteItsRequestWhileTheProgressThreadBlocks() throws Exception
    {
        final FakeWorker worker = new FakeWorker(ProgressModel.ARMABLE, TimeUnit.HOURS.toNanos(1));
        final WorkerProgress progress = start(worker, new OverlapDetector(worker.inCycle));
        worker.wakeup.awaitBlocking();
        final long wakeupsBefore = worker.wakeup.returns.get();

        final AtomicReference<Thread> completedOn = new AtomicReference<>();
        final AtomicBoolean wasProgressThread = new AtomicBoolean();
        final AtomicInteger nested = new AtomicInteger(Integer.MIN_VALUE);
        final CompletableFuture<String> request = new CompletableFuture<>();
        worker.completion = () ->
        {
            completedOn.set(Thread.currentThread());
            wasProgressThread.set(progress.isProgressThread());
            nested.set(progress.tryProgress()); // a callback inside a caller's cycle: must not re-enter
            request.complete("answer");
        };
        int cycles = 0;
        while (!request.isDone())
        {
            assertTrue(progress.tryProgress() >= 0, "an armable worker can be driven by its caller");
            cycles++;
        }

        assertEquals("answer", request.get());
        assertSame(Thread.currentThread(), completedOn.get(), "the caller polled and completed its own request");
        assertTrue(wasProgressThread.get(), "inside its cycle the caller is the progress thread");
        assertFalse(progress.isProgressThread(), "and only inside it");
        assertEquals(0, nested.get(), "a nested tryProgress runs no cycle");
        assertEquals(1, worker.maxDepth.get(), "no cycle ever ran inside another");
        assertTrue(worker.wakeup.blocking, "the progress thread slept through it");
        assertEquals(wakeupsBefore, worker.wakeup.returns.get(), "nothing woke the progress thread");
        assertEquals(cycles, progress.callerCycles());
    }

    @Test
    @Timeout(60)
    void shouldStopCallersWhenClosedWhileTheyDrive() throws Exception
    {
        final FakeWorker worker = new FakeWorker(ProgressModel.ARMABLE, TimeUnit.MILLISECONDS.toNanos(5));
        final WorkerProgress progress = start(worker, new OverlapDetector(worker.inCycle));
        final CountDownLatch driving = new CountDownLatch(1);
        final AtomicInteger last = new AtomicInteger();
        final Thread caller = new Thread(() ->
        {
            int work;
            do
            {
                work = progress.tryProgress();
                driving.countDown();
            }
            while (work >= 0);
            last.set(work);
        }, "caller");
        caller.start();
        assertTrue(driving.await(30, TimeUnit.SECONDS));
        progress.close();
        caller.join(TimeUnit.SECONDS.toMillis(30));
        assertFalse(caller.isAlive(), "the caller saw the close");
        assertEquals(-1, last.get(), "a closed progress cannot be driven");
        assertEquals(1, worker.closes.get(), "the worker was closed once");
        assertEquals(0, worker.cyclesAfterClose.get(), "no cycle ran on a closed worker");
        assertEquals(-1, progress.tryProgress());
        assertEquals(null, errors.get());
    }

    private WorkerProgress start(final FakeWorker worker, final Agent duty)
    {
        final WorkerProgress progress = WorkerProgress.start(worker, duty, "test-progress", errors::set);
        started.add(progress);
        return progress;
    }

    /** Counts entries into a cycle that another thread is already in. */
    private static final class OverlapDetector implements Agent
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
     * A worker with no transport: its doWork marks the cycle entered (the duty marks it left), runs a completion
     * handed to it, and with {@code busy} reports work so that the progress thread never idles.
     */
    private static final class FakeWorker implements Worker
    {
        final ProgressModel model;
        final FakeWakeup wakeup;
        final AtomicInteger inCycle = new AtomicInteger();
        final AtomicInteger overlaps = new AtomicInteger();
        final AtomicInteger maxDepth = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        final AtomicInteger cyclesAfterClose = new AtomicInteger();
        final AtomicLong progressThreadCycles = new AtomicLong();
        volatile boolean busy;
        volatile Runnable completion;
        private volatile boolean closed;
        private int depth;

        FakeWorker(final ProgressModel model, final long blockNanos)
        {
            this.model = model;
            this.wakeup = new FakeWakeup(blockNanos);
        }

        @Override
        public int doWork()
        {
            if (inCycle.getAndIncrement() != 0)
            {
                overlaps.incrementAndGet();
            }
            if (closed)
            {
                cyclesAfterClose.incrementAndGet();
            }
            if (!Thread.currentThread().getName().startsWith("caller-"))
            {
                progressThreadCycles.incrementAndGet();
            }
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
                return busy ? 1 : 0;
            }
            finally
            {
                depth--;
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
    private static final class FakeWakeup implements WorkerWakeup
    {
        final AtomicLong returns = new AtomicLong();
        private final long blockNanos;
        private volatile Thread waiter;
        private volatile boolean signalled;
        volatile boolean blocking;

        FakeWakeup(final long blockNanos)
        {
            this.blockNanos = blockNanos;
        }

        void awaitBlocking() throws InterruptedException
        {
            while (!blocking)
            {
                Thread.sleep(1);
            }
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

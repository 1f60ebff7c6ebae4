package io.rdmakv.transport.progress;

import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.progress.ProgressFakes.CyclePause;
import io.rdmakv.transport.progress.ProgressFakes.FakeWorker;
import io.rdmakv.transport.progress.ProgressFakes.GatedIdle;
import io.rdmakv.transport.progress.ProgressFakes.OverlapDetector;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.IdleStrategy;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;

import static io.rdmakv.transport.progress.ProgressFakes.HOLD_SECONDS;
import static io.rdmakv.transport.progress.ProgressFakes.isCaller;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link WorkerProgress#tryProgress()} over fake POLLED and ARMABLE workers (no device): callers and the progress
 * thread never run a duty cycle at once, a caller completes its own request while the progress thread sleeps, a
 * nested call runs no cycle, and closing stops callers. The interleavings that matter are forced (a cycle held open
 * on one thread while another tries, the progress thread parked between cycles), never left to the scheduler; counts
 * and threads are asserted, never times.
 */
class CallerDrivenProgressTest
{
    private static final int CALLERS = 3;

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
    void shouldRefuseEveryCallerWhileTheProgressThreadIsInACycle(final ProgressModel model) throws Exception
    {
        final FakeWorker worker = new FakeWorker(model, TimeUnit.HOURS.toNanos(1));
        final CyclePause progressInside = new CyclePause(t -> !isCaller(t));
        worker.pause = progressInside; // the progress thread's first cycle stays open until released
        final OverlapDetector duty = new OverlapDetector(worker.inCycle);
        final WorkerProgress progress = start(worker, duty);
        progressInside.awaitEntered();

        final List<Integer> results = runCallers(CALLERS, 1_000, progress);

        assertEquals(CALLERS * 1_000, results.size());
        assertTrue(results.stream().allMatch(work -> work == 0), "a caller runs no cycle while another thread is in one");
        assertEquals(0, progress.callerCycles());
        assertEquals(0, worker.callerThreadCycles.get(), "no caller entered the worker");
        progressInside.release.countDown();
        progress.close();
        assertEquals(0, worker.overlaps.get() + duty.overlaps.get(), "two threads were inside a duty cycle at once");
        assertEquals(0, worker.pauseTimeouts.get());
        assertEquals(null, errors.get());
    }

    @ParameterizedTest
    @EnumSource(value = ProgressModel.class, names = {"POLLED", "ARMABLE"})
    @Timeout(60)
    void shouldRunACallersCycleAndMakeTheProgressThreadWaitForIt(final ProgressModel model) throws Exception
    {
        final FakeWorker worker = new FakeWorker(model, TimeUnit.HOURS.toNanos(1));
        final OverlapDetector duty = new OverlapDetector(worker.inCycle);
        final GatedIdle gate = new GatedIdle(true);
        final WorkerProgress progress = startGated(worker, duty, gate);
        final Thread progressThread = gate.awaitParked(); // between cycles: it holds no lock

        // 1. a caller runs a cycle itself, held open inside it
        final CyclePause callerInside = new CyclePause(ProgressFakes::isCaller);
        worker.pause = callerInside;
        final AtomicInteger callerWork = new AtomicInteger(Integer.MIN_VALUE);
        final Thread caller = new Thread(() -> callerWork.set(progress.tryProgress()), "caller-driver");
        caller.start();
        callerInside.awaitEntered();
        assertSame(caller, callerInside.thread, "the caller's own tryProgress entered the worker");

        // 2. the other callers are refused while it is inside
        final List<Integer> others = runCallers(CALLERS - 1, 1_000, progress);
        assertTrue(others.stream().allMatch(work -> work == 0), "a caller runs no cycle while another caller is in one");

        // 3. the progress thread, let go, waits on the cycle lock rather than skip or overlap
        final long progressCyclesBefore = worker.progressThreadCycles.get();
        gate.release();
        awaitBlockedOnALock(progressThread);
        assertEquals(progressCyclesBefore, worker.progressThreadCycles.get(), "the progress thread waited");

        // 4. the caller's cycle ends; the progress thread's next cycle follows it
        final CyclePause progressNext = new CyclePause(t -> t == progressThread);
        worker.pause = progressNext;
        callerInside.release.countDown();
        caller.join(TimeUnit.SECONDS.toMillis(HOLD_SECONDS));
        assertFalse(caller.isAlive());
        assertEquals(1, callerWork.get(), "the caller's cycle did the worker's work");
        progressNext.awaitEntered();
        progressNext.release.countDown();

        progress.close();
        assertEquals(0, worker.overlaps.get() + duty.overlaps.get(), "two threads were inside a duty cycle at once");
        assertEquals(1, worker.callerThreadCycles.get(), "exactly one caller cycle ran");
        assertEquals(1, progress.callerCycles(), "and it was counted");
        assertEquals(0, worker.pauseTimeouts.get());
        assertEquals(null, errors.get());
    }

    @ParameterizedTest
    @EnumSource(value = ProgressModel.class, names = {"POLLED", "ARMABLE"})
    @Timeout(60)
    void shouldNeverRunACycleOnTwoThreadsAtOnce(final ProgressModel model) throws Exception
    {
        // Free-running contention: whichever thread wins each cycle, none overlaps and every caller cycle is counted.
        // That callers do get cycles and that the progress thread waits for them is forced in the tests above.
        final FakeWorker worker = new FakeWorker(model, Long.MAX_VALUE / 4);
        worker.busy = true; // the progress thread cycles without idling: the lock is contended all the time
        final OverlapDetector duty = new OverlapDetector(worker.inCycle);
        final WorkerProgress progress = start(worker, duty);
        ProgressFakes.await(worker.firstProgressThreadCycle, "the progress thread ran a cycle");

        final List<Integer> results = runCallers(CALLERS, 20_000, progress);
        progress.close();

        final long ranByCallers = results.stream().filter(work -> work > 0).count();
        assertEquals(0, worker.overlaps.get() + duty.overlaps.get(), "two threads were inside a duty cycle at once");
        assertEquals(ranByCallers, progress.callerCycles(), "every cycle a caller ran is counted");
        assertEquals(ranByCallers, worker.callerThreadCycles.get(), "and entered the worker once");
        assertTrue(results.stream().allMatch(work -> work >= 0), "an open progress can be driven");
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
        final WorkerProgress progress = Progress.start(worker, duty, "test-progress", errors::set);
        started.add(progress);
        return progress;
    }

    /**
     * As {@link Progress#start} does for the worker's model (the same idle strategy, signal and stop), with
     * {@code gate} in front of the idle strategy.
     */
    private WorkerProgress startGated(final FakeWorker worker, final Agent duty, final GatedIdle gate)
    {
        final IdleStrategy idle;
        final Runnable stopIdling;
        final Runnable signal;
        if (worker.model == ProgressModel.ARMABLE)
        {
            final WakeupIdleStrategy wakeupIdle = new WakeupIdleStrategy(worker.wakeup);
            idle = wakeupIdle;
            signal = worker.wakeup::signal;
            stopIdling = wakeupIdle::stopBlocking;
        }
        else
        {
            final SignalledIdleStrategy signalledIdle = new SignalledIdleStrategy();
            idle = signalledIdle;
            signal = signalledIdle::signal;
            stopIdling = signalledIdle::signal;
        }
        gate.delegateTo(idle);
        final WorkerProgress progress = PolledWorkerProgress.start(worker, duty, "test-progress", errors::set, gate,
            signal, () ->
            {
                gate.release();
                stopIdling.run();
            });
        started.add(progress);
        return progress;
    }

    /**
     * Runs {@code callers} threads that each call {@link WorkerProgress#tryProgress()} {@code attemptsEach} times,
     * checking that a caller is the progress thread only inside its cycle, and returns every result.
     */
    private static List<Integer> runCallers(final int callers, final int attemptsEach, final WorkerProgress progress)
        throws InterruptedException
    {
        final List<Integer> results = Collections.synchronizedList(new ArrayList<>());
        final AtomicInteger misidentified = new AtomicInteger();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < callers; t++)
        {
            final Thread thread = new Thread(() ->
            {
                final List<Integer> own = new ArrayList<>(attemptsEach);
                for (int i = 0; i < attemptsEach; i++)
                {
                    own.add(progress.tryProgress());
                    if (progress.isProgressThread())
                    {
                        misidentified.incrementAndGet();
                    }
                }
                results.addAll(own);
            }, "caller-" + t);
            threads.add(thread);
            thread.start();
        }
        for (final Thread thread : threads)
        {
            thread.join(TimeUnit.SECONDS.toMillis(HOLD_SECONDS));
            assertFalse(thread.isAlive(), "a caller never blocks");
        }
        assertEquals(0, misidentified.get(), "a caller is the progress thread only inside a cycle");
        return results;
    }

    /** Waits until {@code thread} is parked on a lock (a {@link AbstractQueuedSynchronizer}), not on the gate. */
    private static void awaitBlockedOnALock(final Thread thread) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(HOLD_SECONDS);
        while (!(LockSupport.getBlocker(thread) instanceof AbstractQueuedSynchronizer))
        {
            if (deadline - System.nanoTime() < 0)
            {
                throw new AssertionError(thread.getName() + " never waited for the cycle lock");
            }
            Thread.onSpinWait();
            Thread.yield();
        }
    }
}

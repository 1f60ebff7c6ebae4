package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.transport.WorkerProgress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link DrivenFuture}: a thread blocked on an async call's future (or on a stage made from it) drives the client's
 * progress and completes the future in its own cycle, counted as {@link ClientCounter#CALLER_COMPLETIONS}; it parks
 * as a plain CompletableFuture does when it cannot drive (no driver, -1, the budget spent, on the progress thread).
 * Counts and threads are asserted, never times.
 */
@Timeout(30)
class DrivenFutureTest
{
    private final ClientCounters counters = new ClientCounters();

    @Test
    void shouldCompleteTheFutureOnTheThreadBlockedInGet() throws Exception
    {
        final FakeProgress driver = new FakeProgress(1);
        final DrivenFuture<String> future = new DrivenFuture<>(drive(driver, new CallerDriveBudget(1)));
        final AtomicReference<Thread> completedOn = new AtomicReference<>();
        driver.onCycle(3, () ->
        {
            completedOn.set(Thread.currentThread());
            future.complete("v");
        });

        assertEquals("v", future.get());
        assertSame(Thread.currentThread(), completedOn.get(), "the waiter's own cycle completed it");
        assertEquals(3, driver.cycles.get(), "it drove until its answer came");
        assertEquals(1, counters.get(ClientCounter.CALLER_COMPLETIONS));
    }

    @Test
    void shouldDriveWhileWaitingOnAStageMadeFromTheFuture() throws Exception
    {
        final FakeProgress driver = new FakeProgress(1);
        final DrivenFuture<String> call = new DrivenFuture<>(drive(driver, new CallerDriveBudget(1)));
        final AtomicReference<Thread> stageRanOn = new AtomicReference<>();
        final CompletableFuture<String> stage = call.whenComplete((v, t) -> stageRanOn.set(Thread.currentThread()))
            .thenApply(v -> v + "!");
        assertInstanceOf(DrivenFuture.class, stage, "stages drive too");
        driver.onCycle(2, () -> call.complete("v"));

        assertEquals("v!", stage.get(60, TimeUnit.SECONDS));
        assertSame(Thread.currentThread(), stageRanOn.get());
        assertEquals(2, driver.cycles.get());
        assertEquals("v", call.join(), "join of a done future returns at once");
        assertEquals(2, driver.cycles.get(), "no cycle for a future that is already done");
    }

    @Test
    void shouldParkUntilAnotherThreadCompletesWhenCallersCannotDrive() throws Exception
    {
        final FakeProgress refusing = new FakeProgress(-1); // EVENT_DRIVEN or closed
        final DrivenFuture<String> future = new DrivenFuture<>(drive(refusing, new CallerDriveBudget(1)));
        final Thread completer = completeOnceParked(future, Thread.currentThread());

        assertEquals("late", future.join());
        completer.join();
        assertEquals(1, refusing.calls.get(), "one refused try, then the park");
        assertEquals(0, counters.get(ClientCounter.CALLER_COMPLETIONS));
    }

    @Test
    void shouldNotDriveWhenTheBudgetIsSpentOrOnTheProgressThread() throws Exception
    {
        final CallerDriveBudget budget = new CallerDriveBudget(1);
        assertTrue(budget.tryEnter(), "another caller drives");
        final FakeProgress driver = new FakeProgress(1);
        final DrivenFuture<String> future = new DrivenFuture<>(drive(driver, budget));
        final Thread completer = completeOnceParked(future, Thread.currentThread());
        assertEquals("late", future.get());
        completer.join();
        assertEquals(0, driver.calls.get(), "the budget was spent: it parked without polling the worker");
        assertEquals(1, budget.drivers(), "the other caller's place is untouched");
        budget.exit();

        final FakeProgress onProgressThread = new FakeProgress(1);
        onProgressThread.progressThread = true;
        final DrivenFuture<String> nested = new DrivenFuture<>(drive(onProgressThread, budget));
        final Thread other = completeOnceParked(nested, Thread.currentThread());
        assertEquals("late", nested.get());
        other.join();
        assertEquals(0, onProgressThread.calls.get(), "a wait on the progress thread (a callback) never cycles");
        assertEquals(0, budget.drivers());
    }

    @Test
    void shouldYieldWhereCallersCannotDriveAndSeeTheAnswerWithoutAnUnpark() throws Exception
    {
        // tcp: no driver; the waiter yields (a window longer than the test) holding a place in the budget, and the
        // progress thread completes the future meanwhile.
        final CallerDriveBudget budget = new CallerDriveBudget(1);
        final DrivenFuture<String> future = new DrivenFuture<>(
            new DrivenFuture.Drive(null, budget, counters, 0, TimeUnit.SECONDS.toNanos(60), () -> true));
        final Thread loop = new Thread(() ->
        {
            while (budget.drivers() == 0)
            {
                Thread.onSpinWait();
            }
            future.complete("v");
        }, "fake-event-loop");
        loop.start();

        assertEquals("v", future.get());
        loop.join();
        assertEquals(1, counters.get(ClientCounter.CALLER_YIELD_COMPLETIONS), "seen while yielding");
        assertEquals(0, counters.get(ClientCounter.CALLER_COMPLETIONS), "yielding is not driving");
        assertEquals(0, budget.drivers(), "its place was given back");
    }

    @Test
    void shouldTimeOutAGetWhoseAnswerNeverComes()
    {
        final FakeProgress busy = new FakeProgress(0); // someone else always holds the cycle
        final CallerDriveBudget budget = new CallerDriveBudget(1);
        final DrivenFuture<String> future = new DrivenFuture<>(drive(busy, budget));

        assertThrows(TimeoutException.class, () -> future.get(1, TimeUnit.MILLISECONDS));
        assertTrue(busy.calls.get() >= 1, "it tried to drive first");
        assertEquals(0, budget.drivers(), "its place was given back");
        assertEquals(0, counters.get(ClientCounter.CALLER_COMPLETIONS));
    }

    private DrivenFuture.Drive drive(final WorkerProgress driver, final CallerDriveBudget budget)
    {
        return new DrivenFuture.Drive(driver, budget, counters, TimeUnit.MICROSECONDS.toNanos(20), 0, () -> true);
    }

    /** Another thread completes {@code future} with "late" once {@code waiter} parks in its wait. */
    private static Thread completeOnceParked(final CompletableFuture<String> future, final Thread waiter)
    {
        final Thread t = new Thread(() ->
        {
            while (waiter.getState() != Thread.State.WAITING && waiter.getState() != Thread.State.TIMED_WAITING)
            {
                Thread.onSpinWait();
            }
            future.complete("late");
        }, "fake-progress-thread");
        t.start();
        return t;
    }

    /** {@link #tryProgress()} answers {@code answer}; with a positive answer, a cycle that may run a completion. */
    private static final class FakeProgress implements WorkerProgress
    {
        final AtomicInteger calls = new AtomicInteger();
        final AtomicInteger cycles = new AtomicInteger();
        private final int answer;
        private int completeAt;
        private Runnable completion;
        boolean progressThread;

        FakeProgress(final int answer)
        {
            this.answer = answer;
        }

        void onCycle(final int cycle, final Runnable run)
        {
            this.completeAt = cycle;
            this.completion = run;
        }

        @Override
        public int tryProgress()
        {
            calls.incrementAndGet();
            if (answer <= 0)
            {
                return answer;
            }
            if (cycles.incrementAndGet() == completeAt)
            {
                completion.run();
            }
            return 1;
        }

        @Override
        public boolean isProgressThread()
        {
            return progressThread;
        }

        @Override
        public void signal()
        {
        }

        @Override
        public void close()
        {
        }
    }
}

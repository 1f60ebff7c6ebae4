package io.rdmakv.transport.progress;

import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.IdleStrategy;

/**
 * The {@link WorkerProgress} of a worker that a thread of its own polls (POLLED and ARMABLE): an {@link AgentRunner}
 * over a {@link LockedDutyCycle} of the worker and the duty, with the idle strategy of the worker's model. Waiting
 * callers may run a cycle themselves ({@link #tryProgress()}); the lock keeps them and the progress thread apart.
 */
final class PolledWorkerProgress implements WorkerProgress
{
    private final AgentRunner runner;
    private final LockedDutyCycle cycle;
    private final Runnable signal;
    private final Runnable stopIdling;

    private PolledWorkerProgress(final AgentRunner runner, final LockedDutyCycle cycle, final Runnable signal,
        final Runnable stopIdling)
    {
        this.runner = runner;
        this.cycle = cycle;
        this.signal = signal;
        this.stopIdling = stopIdling;
    }

    /**
     * @param signal     wakes the idle thread (from {@link #signal()}).
     * @param stopIdling makes the idle strategy stop sleeping for good, so closing does not wait out a sleep.
     */
    static WorkerProgress start(final Worker worker, final Agent duty, final String threadName,
        final ErrorHandler errors, final IdleStrategy idle, final Runnable signal, final Runnable stopIdling)
    {
        final LockedDutyCycle cycle = new LockedDutyCycle(worker, duty, errors);
        if (idle instanceof SpinYieldIdleStrategy spinning)
        {
            spinning.skipSpinningWhen(cycle::callersActive); // callers poll for their own work: no spinning beside them
        }
        final AgentRunner runner = new AgentRunner(idle, errors, null, cycle);
        AgentRunner.startOnThread(runner, r ->
        {
            final Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        return new PolledWorkerProgress(runner, cycle, signal, stopIdling);
    }

    @Override
    public boolean isProgressThread()
    {
        return Thread.currentThread() == runner.thread() || cycle.isCycling();
    }

    @Override
    public int tryProgress()
    {
        if (Thread.currentThread() == runner.thread())
        {
            return 0; // a callback on the progress thread: it is in a cycle already
        }
        return cycle.tryCycle();
    }

    @Override
    public long callerCycles()
    {
        return cycle.callerCycles();
    }

    @Override
    public void signal()
    {
        signal.run();
    }

    @Override
    public void close()
    {
        stopIdling.run();
        runner.close();
    }
}

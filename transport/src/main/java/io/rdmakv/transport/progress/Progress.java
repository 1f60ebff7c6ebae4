package io.rdmakv.transport.progress;

import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.WorkerWakeup;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;

/**
 * Starts a worker's progress in the way its {@link io.rdmakv.transport.ProgressModel} allows, so applications do not
 * branch on it: POLLED on a thread of its own idling with {@link SignalledIdleStrategy}, ARMABLE on a thread of its
 * own blocking on the worker's wake-up ({@link WakeupIdleStrategy}), EVENT_DRIVEN on the transport's own I/O thread
 * ({@link Worker#driveProgress}).
 */
public final class Progress
{
    private Progress()
    {
    }

    /**
     * Start driving {@code worker} and {@code duty} in the way the worker's {@link Worker#progressModel()} allows.
     *
     * @param worker     the worker; from now on only the progress thread drives it.
     * @param duty       the application's agent, run on the progress thread with the worker.
     * @param threadName the progress thread's name when one is started (POLLED and ARMABLE workers).
     * @param errors     receives what the worker or duty throws; progress continues.
     * @return the running progress; close it to stop it and close the worker.
     */
    public static WorkerProgress start(final Worker worker, final Agent duty, final String threadName,
        final ErrorHandler errors)
    {
        switch (worker.progressModel())
        {
            case EVENT_DRIVEN:
                return worker.driveProgress(duty, WorkerProgress.DEFAULT_TIMER_INTERVAL, errors);
            case ARMABLE:
            {
                final WorkerWakeup wakeup = worker.wakeup();
                final WakeupIdleStrategy idle = new WakeupIdleStrategy(wakeup);
                return PolledWorkerProgress.start(worker, duty, threadName, errors, idle, wakeup::signal,
                    idle::stopBlocking);
            }
            default:
            {
                final SignalledIdleStrategy idle = new SignalledIdleStrategy();
                return PolledWorkerProgress.start(worker, duty, threadName, errors, idle, idle::signal, idle::signal);
            }
        }
    }
}

package io.rdmakv.transport;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;

import java.time.Duration;

/**
 * The thing that runs a worker's progress together with an application's own duty agent (timers, hand-offs from other
 * threads), whichever {@link ProgressModel} the worker has. Callbacks of the worker's endpoints and
 * {@code duty.doWork()} always run on one thread, {@link #isProgressThread() the progress thread}.
 *
 * <pre>
 *   POLLED:        AgentRunner thread:  loop { worker.doWork(); duty.doWork(); idle (spin, yield, park <= 100 us) }
 *                  signal() unparks it when it is parked (a flag check, no syscall when it is running)
 *   ARMABLE:       AgentRunner thread:  loop { worker.doWork(); duty.doWork(); idle (spin, yield, arm, poll once
 *                  more, block on the worker's wake-up <= its housekeeping interval) }
 *                  signal() writes the worker's eventfd when it blocks (a flag check when it is running); a
 *                  completion wakes it through the worker's completion channel
 *   EVENT_DRIVEN:  the worker's I/O thread: callbacks inline as events are read;
 *                  duty cycle (worker timers + duty.doWork()) every timer interval and soon after signal()
 * </pre>
 * Closing stops the progress and closes the worker (then {@code duty.onClose()}) on the progress thread.
 */
public interface WorkerProgress extends AutoCloseable
{
    /**
     * Duty cycles at least this often on EVENT_DRIVEN workers: worker timeouts, expiry and the duty's own timers rely
     * on it. POLLED workers cycle at least every 100 us; an idle ARMABLE worker at least every
     * {@link WorkerWakeup#maxBlockNanos()} (verbs: {@code verbs.idleWaitMs}), so duty timers there must tolerate
     * that much lateness when nothing else happens.
     */
    Duration DEFAULT_TIMER_INTERVAL = Duration.ofMillis(1);

    /** True when called on the thread that runs the worker's callbacks and the duty agent. */
    boolean isProgressThread();

    /**
     * Ask for a duty cycle soon; from any thread (e.g. after handing work to the duty through a queue). Cheap when
     * the progress thread is busy: it wakes a sleeping progress thread only.
     */
    void signal();

    /** Stop; the worker is closed and {@code duty.onClose()} runs. Idempotent. */
    @Override
    void close();

    /**
     * Start driving {@code worker} and {@code duty} in the way the worker's {@link Worker#progressModel()} allows.
     *
     * @param threadName the progress thread's name when one is started (POLLED and ARMABLE workers).
     * @param errors     receives what the worker or duty throws; progress continues.
     */
    static WorkerProgress start(final Worker worker, final Agent duty, final String threadName,
        final ErrorHandler errors)
    {
        switch (worker.progressModel())
        {
            case EVENT_DRIVEN:
                return worker.driveProgress(duty, DEFAULT_TIMER_INTERVAL, errors);
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

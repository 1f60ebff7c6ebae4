package io.rdmakv.transport;

import org.agrona.ErrorHandler;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CompositeAgent;

import java.time.Duration;

/**
 * The thing that runs a worker's progress together with an application's own duty agent (timers, hand-offs from other
 * threads), whichever {@link ProgressModel} the worker has. Callbacks of the worker's endpoints and
 * {@code duty.doWork()} always run on one thread, {@link #isProgressThread() the progress thread}.
 *
 * <pre>
 *   POLLED:        AgentRunner thread:  loop { worker.doWork(); duty.doWork(); idle (spin, yield, park <= 100 us) }
 *                  signal() unparks it when it is parked (a flag check, no syscall when it is running)
 *   EVENT_DRIVEN:  the worker's I/O thread: callbacks inline as events are read;
 *                  duty cycle (worker timers + duty.doWork()) every timer interval and soon after signal()
 * </pre>
 * Closing stops the progress and closes the worker (then {@code duty.onClose()}) on the progress thread.
 */
public interface WorkerProgress extends AutoCloseable
{
    /** Duty cycles at least this often: worker timeouts, expiry and the duty's own timers rely on it. */
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
     * @param threadName the progress thread's name when one is started (POLLED workers).
     * @param errors     receives what the worker or duty throws; progress continues.
     */
    static WorkerProgress start(final Worker worker, final Agent duty, final String threadName,
        final ErrorHandler errors)
    {
        if (worker.progressModel() == ProgressModel.EVENT_DRIVEN)
        {
            return worker.driveProgress(duty, DEFAULT_TIMER_INTERVAL, errors);
        }
        final SignalledIdleStrategy idle = new SignalledIdleStrategy();
        final AgentRunner runner = new AgentRunner(idle, errors, null, new CompositeAgent(worker, duty));
        AgentRunner.startOnThread(runner, r ->
        {
            final Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
        return new WorkerProgress()
        {
            @Override
            public boolean isProgressThread()
            {
                return Thread.currentThread() == runner.thread();
            }

            @Override
            public void signal()
            {
                idle.signal();
            }

            @Override
            public void close()
            {
                runner.close();
            }
        };
    }
}

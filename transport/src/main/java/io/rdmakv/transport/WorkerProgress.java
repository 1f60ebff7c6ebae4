package io.rdmakv.transport;

import org.agrona.ErrorHandler;

import java.time.Duration;

/**
 * The thing that runs a worker's progress together with an application's own duty agent (timers, hand-offs from other
 * threads), whichever {@link ProgressModel} the worker has. Callbacks of the worker's endpoints and
 * {@code duty.doWork()} always run on one thread, {@link #isProgressThread() the progress thread}.
 *
 * <pre>
 *   POLLED:        AgentRunner thread:  loop { worker.doWork(); duty.doWork(); idle (spin, yield, park &lt;= 100 us) }
 *                  signal() unparks it when it is parked (a flag check, no syscall when it is running)
 *   ARMABLE:       AgentRunner thread:  loop { worker.doWork(); duty.doWork(); idle (spin, yield, arm, poll once
 *                  more, block on the worker's wake-up &lt;= its housekeeping interval) }
 *                  signal() writes the worker's eventfd when it blocks (a flag check when it is running); a
 *                  completion wakes it through the worker's completion channel
 *   EVENT_DRIVEN:  the worker's I/O thread: callbacks inline as events are read;
 *                  duty cycle (worker timers + duty.doWork()) every timer interval and soon after signal()
 * </pre>
 * {@link io.rdmakv.transport.progress.Progress#start} picks and starts the right one. Closing stops the progress and
 * closes the worker (then {@code duty.onClose()}) on the progress thread.
 *
 * <p>Caller-driven progress (POLLED and ARMABLE; UCX's {@code ucp_worker_progress} from the application's thread): a
 * thread that waits for its own request may call {@link #tryProgress()} in its wait loop to run a duty cycle itself
 * instead of sleeping until the progress thread wakes it. Every cycle, the progress thread's and the callers', runs
 * under one lock ({@code progress.LockedDutyCycle}): callers only try it, the progress thread takes it blocking, so
 * its poll
 * after an arm is never skipped.
 * <pre>
 *   caller:           post ; loop { tryProgress() ; done? }     its completion is polled and its callback run here
 *   progress thread:  as above; while callers drive (a caller cycle within 1 ms) it skips its spins and yields and
 *                     waits unarmed for at most that millisecond, rather than take the cycle lock, and their
 *                     completions, from them (unarmed, those completions raise no event for it); a completion a
 *                     caller polled while it was still armed raises the CQ's event, so it wakes, finds nothing and
 *                     idles again (the cost lands on the progress thread, not the caller)
 * </pre>
 * No lost wake-up with callers in the game: a caller only ever takes completions out of the queue, it never arms and
 * never blocks the worker's wake-up source. The progress thread's block follows its own arm and its own (blocking,
 * never skipped) poll after that arm, so the arm/completion argument of
 * {@link io.rdmakv.transport.progress.WakeupIdleStrategy} holds unchanged:
 * a completion before the arm is taken by that poll or by a caller that ran before it; one after the arm raises an
 * event. Work a caller's cycle leaves for later (a deferral, a task) is handed over with {@link #signal()} like work
 * from any other thread.
 *
 * <p>How late a duty timer may run when nothing happens: POLLED workers cycle at least every 100 us; an idle ARMABLE
 * worker blocks {@link WorkerWakeup#maxBlockNanos()} (verbs: {@code verbs.idleWaitMs}, 10 ms) after its last work,
 * and, while consecutive waits find nothing at all, twice as long each time up to
 * {@link WorkerWakeup#maxIdleBlockNanos()} (verbs: {@code verbs.idleMaxWaitMs}, 100 ms). So a timer of an idle
 * ARMABLE worker may run up to {@code verbs.idleMaxWaitMs} late; any completion, signal or caller cycle runs it at
 * once. The duties that rely on it tolerate that: the verbs worker's operation timeouts and the client's
 * request-timeout scan (timeouts of seconds; a synchronous caller runs the scan itself while it drives progress), the
 * server's extent reclaim (freed extents go back to the allocator that much later, after a 100 ms grace) and its
 * ATTACH deadline check ({@code auth.ticketTtlMs}, 30 s). Durable-write completions signal.
 */
public interface WorkerProgress extends AutoCloseable
{
    /**
     * Duty cycles at least this often on EVENT_DRIVEN workers: worker timeouts, expiry and the duty's own timers rely
     * on it. POLLED and ARMABLE workers: see the lateness bound above.
     */
    Duration DEFAULT_TIMER_INTERVAL = Duration.ofMillis(1);

    /** True when called on the thread that runs the worker's callbacks and the duty agent. */
    boolean isProgressThread();

    /**
     * Ask for a duty cycle soon; from any thread (e.g. after handing work to the duty through a queue). Cheap when
     * the progress thread is busy: it wakes a sleeping progress thread only.
     */
    void signal();

    /**
     * Run one duty cycle ({@code worker.doWork(); duty.doWork()}) on the calling thread, if the worker's model allows
     * it and no other thread is in a cycle; for a thread waiting for its own request. While it runs, the caller
     * {@link #isProgressThread() is the progress thread}: callbacks and future completions run on it, and a nested
     * call returns 0 without a cycle. Never blocks.
     *
     * @return the work done (0 when another thread is cycling, or this one already is), or -1 when callers cannot
     *         drive this worker: EVENT_DRIVEN (tcp: its I/O thread owns the channels) or closed.
     */
    default int tryProgress()
    {
        return -1;
    }

    /** Duty cycles run by callers through {@link #tryProgress()} (diagnostics, tests). */
    default long callerCycles()
    {
        return 0;
    }

    /** Stop; the worker is closed and {@code duty.onClose()} runs. Idempotent. */
    @Override
    void close();

    /**
     * Progress {@code guest}, a worker of another transport, on this progress's thread too, so its callbacks run
     * where this worker's do (one request thread for both, no hand-off): its wake-up is folded into this thread's
     * idle strategy (UCX's {@code ucp_worker_get_efd} watched by another event loop). Only where both sides allow it:
     * today an ARMABLE guest whose wake-up can be hosted ({@link WorkerWakeup#hostedFds()}) on a tcp worker's
     * native-epoll event loop.
     *
     * @param guest  a worker nobody progresses yet, before it listens or connects.
     * @param errors receives what the guest throws; progress continues.
     * @return the guest's progress (closing it stops the guest's cycles and closes the guest), or null when this
     *         progress cannot host it: give the guest a progress of its own.
     */
    default WorkerProgress host(final Worker guest, final ErrorHandler errors)
    {
        return null;
    }
}

package io.rdmakv.transport;

/**
 * The wake-up source of an {@link ProgressModel#ARMABLE} worker, in the shape of UCX's {@code ucp_worker_get_efd} /
 * {@code ucp_worker_arm} / {@code ucp_worker_signal}: an idle progress thread arms the worker, polls it once more,
 * and only then blocks; a completion or a signal from another thread ends the block.
 *
 * <pre>
 *   progress thread:  doWork() == 0 ... arm() ; doWork() == 0 ; await(maxBlockNanos()) ; doWork() ...
 *                                        |                       ^ returns at the first completion after arm(),
 *                                        '- completions after     | the first signal(), or the timeout
 *                                           this raise an event  -'
 *   any thread:       hand work over, then signal()
 * </pre>
 * {@link io.rdmakv.transport.progress.WakeupIdleStrategy} runs the progress side; applications reach
 * {@link #signal()} through {@link WorkerProgress#signal()}.
 */
public interface WorkerWakeup
{
    /** Wake the progress thread if it blocks, or make its next {@link #await} return at once. Any thread; cheap. */
    void signal();

    /** Ask for an event at the next completion. Progress thread; poll the worker once more before blocking. */
    void arm();

    /**
     * Block until an event of the armed worker, a {@link #signal()} or {@code timeoutNanos}, then consume what woke
     * it. Progress thread.
     *
     * @return true when an event or a signal ended the wait, false on the timeout.
     */
    boolean await(long timeoutNanos);

    /**
     * The longest an idle progress thread blocks right after work: the worker's housekeeping interval (its timers
     * rely on it). {@link io.rdmakv.transport.progress.WakeupIdleStrategy} starts every idle period with it.
     */
    long maxBlockNanos();

    /**
     * The longest one block may last once consecutive waits found nothing to do ({@link io.rdmakv.transport.progress.WakeupIdleStrategy} doubles
     * its wait from {@link #maxBlockNanos()} up to this): bounds how late a timer of a quiet worker runs. Never less
     * than {@link #maxBlockNanos()}; the same by default (no back-off).
     */
    default long maxIdleBlockNanos()
    {
        return maxBlockNanos();
    }

    /** How many times {@link #await} returned after blocking in the kernel (diagnostics and tests). */
    long wakeups();

    /**
     * How long an idle progress thread keeps polling after its last work before it yields, arms and blocks (a time
     * window, so the next request of a peer that answers quickly is found without a wake-up); 0: no window, only the
     * idle strategy's fixed spins and yields.
     */
    default long spinNanos()
    {
        return 0;
    }

    /**
     * Hosting: the descriptors another thread's event loop watches instead of calling {@link #await} (UCX's
     * {@code ucp_worker_get_efd}): readable when {@code await} would have returned for an event. The host calls
     * {@link #consumeHostedEvents()} when one is readable, and polls the worker after it.
     *
     * @throws UnsupportedOperationException when this wake-up cannot be hosted.
     */
    default int[] hostedFds()
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot be hosted");
    }

    /**
     * From now on another thread's event loop progresses this worker: {@link #signal()} runs {@code hostSignal} (which
     * asks the host for a cycle) instead of writing the eventfd, and {@link #await} is never called. Before the host
     * watches {@link #hostedFds()}.
     */
    default void hostBy(final Runnable hostSignal)
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot be hosted");
    }

    /** Hosted: consume what made {@link #hostedFds()} readable (as {@link #await} does after its wait). Host thread. */
    default void consumeHostedEvents()
    {
        throw new UnsupportedOperationException(getClass().getSimpleName() + " cannot be hosted");
    }
}

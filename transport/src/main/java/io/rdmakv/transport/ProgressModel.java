package io.rdmakv.transport;

/**
 * How a {@link Worker}'s progress can be driven: a property of the worker, the way UCX tells a worker that can give an
 * event fd ({@code ucp_worker_get_efd}, {@code ucp_worker_arm}, {@code ucp_worker_signal}) from one that must be
 * polled.
 *
 * <pre>
 *   POLLED        a progress thread calls doWork() in a loop and backs off when idle; the transport has no wake-up
 *                 source (verbs with verbs.idle=poll), so an idle thread can only sleep for a bounded time (100 us)
 *   ARMABLE       a progress thread calls doWork() in a loop; when idle it arms the worker's wake-up source, polls
 *                 once more and blocks in the kernel until a completion, a signal or the worker's housekeeping
 *                 interval (verbs with a completion channel: Worker.wakeup(), ucp_worker_arm)
 *   EVENT_DRIVEN  the transport's own I/O thread is the progress thread: callbacks run where the event was read,
 *                 with no hand-off and no timed parking; it sleeps in the kernel (epoll) until there is work, a
 *                 signal or a timer (tcp: the worker's Netty event loop)
 * </pre>
 * {@link io.rdmakv.transport.progress.Progress#start} picks the driver from this property, so applications do not
 * branch on it.
 */
public enum ProgressModel
{
    /** Must be polled by a progress thread (Agrona {@link org.agrona.concurrent.AgentRunner}). */
    POLLED,
    /**
     * Polled while busy; idles by blocking on {@link Worker#wakeup()}
     * ({@link io.rdmakv.transport.progress.WakeupIdleStrategy}).
     */
    ARMABLE,
    /** Driven by the transport's I/O thread through {@link Worker#driveProgress}. */
    EVENT_DRIVEN
}

package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.AttachAnswer;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.MemoryWindow;
import io.rdmakv.transport.log.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The memory window of each data session on a transport with windows (issue 33 item 3): the pool's own remote key
 * never leaves the node; each attached endpoint gets a type 2 window over the pool, bound on its own connection, whose
 * key is good for that peer only and dies with the session.
 *
 * <pre>
 *   ATTACH ok  -> bind posted (the request thread goes on) --bound--> ATTACH answer OK + the window's key
 *                                                          --failed--> ATTACH answer OK, no key (GETs go by RPC)
 *   disconnect (any end: peer, idle close, back-pressure, shutdown) -> the window closed (ibv_dealloc_mw)
 *   revoke (the session's user removed or changed)                  -> the window closed, then the endpoint
 *   ended while the bind is in flight -> the window closed when the bind completes; nothing answered
 *   node shutdown -> every window closed, before the pool region is deregistered (the request thread's close)
 * </pre>
 *
 * The ATTACH answer waits for the bind, so a client never holds a key before the device honours it, and never reads
 * with the pool's key meanwhile (it has none). Every window is closed exactly once: by whoever removes its entry
 * (end, revoke, close) or, for a bind that completes after its session ended or the node closed, by the completion.
 *
 * <p>Request thread only, except the bind completions: they arrive on the transport's thread (or at once, on this
 * one, when the bind could not be posted) and are queued for {@link #doWork}. Once per connection: may allocate.
 */
public final class SessionWindows
{
    private static final Logger LOG = LoggerFactory.getLogger(SessionWindows.class);
    private static final RateLimitedLog BIND_FAILURES = RateLimitedLog.of(LOG);

    /** How the node binds a window over its pool for one endpoint's peer. */
    public interface Binder
    {
        /** Whether {@code endpoint}'s session reads through a window of its own (its transport has them). */
        boolean serves(Endpoint endpoint);

        /** Bind a window over the whole pool on {@code endpoint} ({@link Endpoint#bindWindow}). */
        CompletableFuture<MemoryWindow> bind(Endpoint endpoint);
    }

    /** Answers an ATTACH once its window is bound, or its bind failed. */
    interface Answers
    {
        /**
         * @param value the OK answer's value: {@link AttachAnswer#windowKey(byte[])}, or null for none.
         */
        void attached(Endpoint endpoint, long correlationId, byte[] value);
    }

    /** A node without windows: nothing is ever bound. */
    public static final Binder NO_WINDOWS = new Binder()
    {
        @Override
        public boolean serves(final Endpoint endpoint)
        {
            return false;
        }

        @Override
        public CompletableFuture<MemoryWindow> bind(final Endpoint endpoint)
        {
            throw new UnsupportedOperationException("no memory windows");
        }
    };

    private final Binder binder;
    private final Answers answers;
    private final ServerCounters counters;
    private final Runnable wakeUp;
    /** Sessions whose window is bound or being bound. */
    private final Map<Endpoint, Session> sessions = new IdentityHashMap<>();
    private final Queue<Bound> completions = new ConcurrentLinkedQueue<>();
    /** Guards {@link #closed} against a completion queued after {@link #close} drained the queue. */
    private final Object closeLock = new Object();
    private boolean closed;

    /**
     * @param binder   binds a window for an endpoint, or {@link #NO_WINDOWS}.
     * @param answers  sends the delayed ATTACH answers (request thread).
     * @param counters {@link ServerCounter#WINDOWS_BOUND}, {@link ServerCounter#WINDOWS_REVOKED}.
     * @param wakeUp   wakes the request thread when a bind completes elsewhere.
     */
    SessionWindows(final Binder binder, final Answers answers, final ServerCounters counters, final Runnable wakeUp)
    {
        this.binder = binder;
        this.answers = answers;
        this.counters = counters;
        this.wakeUp = wakeUp;
    }

    /**
     * An endpoint attached: bind its window when its transport has windows.
     *
     * @return true when the ATTACH answer is left to {@link #doWork} (after the bind); false when there is no window
     *         to bind and the caller answers now.
     */
    boolean onAttached(final Endpoint endpoint, final long correlationId)
    {
        if (!binder.serves(endpoint))
        {
            return false;
        }
        final Session session = new Session(correlationId);
        sessions.put(endpoint, session);
        CompletableFuture<MemoryWindow> bind;
        try
        {
            bind = binder.bind(endpoint);
        }
        catch (final RuntimeException ex)
        {
            bind = CompletableFuture.failedFuture(ex);
        }
        bind.whenComplete((window, failure) -> onBindDone(new Bound(endpoint, session, window, failure)));
        return true;
    }

    /** The endpoint is gone, however it ended: its window (if bound) is closed now, one still binding when bound. */
    void onEnded(final Endpoint endpoint)
    {
        final Session session = sessions.remove(endpoint);
        if (session != null && session.window != null)
        {
            session.window.close();
        }
    }

    /**
     * The endpoint's session was revoked: its window is closed now (before the caller closes the endpoint), so no
     * read with its key succeeds from here on.
     *
     * @return whether it had a window, bound or binding.
     */
    boolean revoke(final Endpoint endpoint)
    {
        final Session session = sessions.remove(endpoint);
        if (session == null)
        {
            return false;
        }
        counters.increment(ServerCounter.WINDOWS_REVOKED);
        if (session.window != null)
        {
            session.window.close();
        }
        return true;
    }

    /** Whether some bind completed and waits for {@link #doWork} (a field read for the duty cycle). */
    boolean anyCompleted()
    {
        return !completions.isEmpty();
    }

    /** Answer the ATTACHes whose bind completed; close the windows of sessions that ended meanwhile. */
    int doWork()
    {
        int work = 0;
        Bound done;
        while ((done = completions.poll()) != null)
        {
            work++;
            if (sessions.get(done.endpoint) != done.session)
            {
                // The session ended (or was revoked) while its window was being bound: nobody has its key.
                if (done.window != null)
                {
                    done.window.close();
                }
                continue;
            }
            if (done.window != null)
            {
                done.session.window = done.window;
                counters.increment(ServerCounter.WINDOWS_BOUND);
                answers.attached(done.endpoint, done.session.correlationId,
                    AttachAnswer.windowKey(done.window.remoteKey().pack()));
            }
            else
            {
                sessions.remove(done.endpoint);
                BIND_FAILURES.warn("no memory window for {}: {}; its one-sided GETs go by RPC",
                    done.endpoint.remoteAddress(), done.failure == null ? "no window" : done.failure.toString());
                answers.attached(done.endpoint, done.session.correlationId, null);
            }
        }
        return work;
    }

    /** Windows bound now (sessions attached through one). */
    int boundCount()
    {
        int bound = 0;
        for (final Session session : sessions.values())
        {
            bound += session.window == null ? 0 : 1;
        }
        return bound;
    }

    /**
     * At shutdown, on the request thread, before the pool region is deregistered (a device refuses to deregister
     * memory windows are bound over): every window closed; a bind that completes later closes its own.
     */
    void close()
    {
        synchronized (closeLock)
        {
            closed = true;
        }
        Bound done;
        while ((done = completions.poll()) != null)
        {
            if (done.window != null)
            {
                done.window.close();
            }
        }
        for (final Session session : new ArrayList<>(sessions.values()))
        {
            if (session.window != null)
            {
                session.window.close();
            }
        }
        sessions.clear();
    }

    private void onBindDone(final Bound done)
    {
        synchronized (closeLock)
        {
            if (!closed)
            {
                completions.add(done);
                wakeUp.run();
                return;
            }
        }
        if (done.window != null)
        {
            done.window.close();
        }
    }

    /** One session's window: null until bound. */
    private static final class Session
    {
        final long correlationId;
        MemoryWindow window;

        Session(final long correlationId)
        {
            this.correlationId = correlationId;
        }
    }

    private record Bound(Endpoint endpoint, Session session, MemoryWindow window, Throwable failure)
    {
    }
}

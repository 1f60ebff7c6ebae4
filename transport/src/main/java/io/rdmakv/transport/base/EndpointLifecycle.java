package io.rdmakv.transport.base;

import io.rdmakv.transport.TransportStatus;

import java.util.concurrent.atomic.AtomicReference;

/**
 * An endpoint's life, one atomic state machine (Netty's {@code AbstractChannel} state with its close flag): every
 * transition is one compare-and-set of an immutable snapshot, so exactly one thread wins each, whichever threads race
 * (a caller's close, the progress thread's failure, a worker's close).
 * <pre>
 *   CONNECTING --connect()--> CONNECTED --beginClose(status, detail)--> CLOSING --finish()--> CLOSED
 *        '-----------------------beginClose(status, detail)-----------------^
 *   requestClose(): the application closed it (any state): operations are refused with CLOSED from now on
 * </pre>
 * CONNECTED admits operations (unless a close was requested); CLOSING admits none and its winner fails what is
 * outstanding, with the cause the first {@code beginClose} recorded; CLOSED is final: {@code onDisconnected} was
 * delivered. Transitions belong to the endpoint ({@link AbstractEndpoint}); its helpers only read.
 */
public final class EndpointLifecycle
{
    /** Where an endpoint is in its life. */
    public enum State
    {
        CONNECTING, CONNECTED, CLOSING, CLOSED
    }

    private record Snapshot(State state, boolean closeRequested, boolean connectedDelivered, TransportStatus status,
        String detail)
    {
        Snapshot with(final State s)
        {
            return new Snapshot(s, closeRequested, connectedDelivered, status, detail);
        }
    }

    private final AtomicReference<Snapshot> current =
        new AtomicReference<>(new Snapshot(State.CONNECTING, false, false, null, null));

    public State state()
    {
        return current.get().state;
    }

    /** Connected and not closed by the application: new operations are admitted. */
    public boolean isConnected()
    {
        final Snapshot s = current.get();
        return s.state == State.CONNECTED && !s.closeRequested;
    }

    /** The application closed the endpoint. */
    public boolean isCloseRequested()
    {
        return current.get().closeRequested;
    }

    /** Going down or gone: no operation is admitted or promoted any more. */
    public boolean isClosing()
    {
        final State s = current.get().state;
        return s == State.CLOSING || s == State.CLOSED;
    }

    /** {@code null} while operations are admitted, else why one is refused: CLOSED once closed locally. */
    public TransportStatus refusal()
    {
        final Snapshot s = current.get();
        if (s.closeRequested)
        {
            return TransportStatus.CLOSED;
        }
        return s.state == State.CONNECTED ? null : TransportStatus.NOT_CONNECTED;
    }

    /** 0 while operations are admitted, else the negative sentinel of {@link #refusal()}. */
    public long refusalSentinel()
    {
        final TransportStatus refused = refusal();
        return refused == null ? 0 : refused.sentinel();
    }

    /** The status the close began with ({@code onDisconnected}'s); {@code null} before. */
    public TransportStatus closeStatus()
    {
        return current.get().status;
    }

    /** The detail the close began with; {@code null} before. */
    public String closeDetail()
    {
        return current.get().detail;
    }

    // ---------------------------------------------------------------- transitions (the endpoint's)

    /** CONNECTING to CONNECTED; false in any other state (a close came first: it stays closing). */
    boolean connect()
    {
        return advance(State.CONNECTING, State.CONNECTED);
    }

    /** The application closed the endpoint; false when it had done so already. */
    boolean requestClose()
    {
        while (true)
        {
            final Snapshot s = current.get();
            if (s.closeRequested)
            {
                return false;
            }
            if (current.compareAndSet(s, new Snapshot(s.state, true, s.connectedDelivered, s.status, s.detail)))
            {
                return true;
            }
        }
    }

    /** CONNECTING or CONNECTED to CLOSING with its cause; true for the one caller that moved it. */
    boolean beginClose(final TransportStatus status, final String detail)
    {
        while (true)
        {
            final Snapshot s = current.get();
            if (s.state == State.CLOSING || s.state == State.CLOSED)
            {
                return false;
            }
            if (current.compareAndSet(s,
                new Snapshot(State.CLOSING, s.closeRequested, s.connectedDelivered, status, detail)))
            {
                return true;
            }
        }
    }

    /** CLOSING to CLOSED; true for the one caller that moved it (it delivers {@code onDisconnected}). */
    boolean finish()
    {
        return advance(State.CLOSING, State.CLOSED);
    }

    /** The one delivery of {@code onConnected}: true once, and never once {@code onDisconnected} was delivered. */
    boolean claimConnectedDelivery()
    {
        while (true)
        {
            final Snapshot s = current.get();
            if (s.connectedDelivered || s.state == State.CLOSED)
            {
                return false;
            }
            if (current.compareAndSet(s, new Snapshot(s.state, s.closeRequested, true, s.status, s.detail)))
            {
                return true;
            }
        }
    }

    private boolean advance(final State from, final State to)
    {
        while (true)
        {
            final Snapshot s = current.get();
            if (s.state != from)
            {
                return false;
            }
            if (current.compareAndSet(s, s.with(to)))
            {
                return true;
            }
        }
    }

    @Override
    public String toString()
    {
        final Snapshot s = current.get();
        return s.state + (s.closeRequested ? " (closed locally)" : "") + (s.status == null ? "" : ": " + s.status);
    }
}

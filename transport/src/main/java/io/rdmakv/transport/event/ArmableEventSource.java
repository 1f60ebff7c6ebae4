package io.rdmakv.transport.event;

/**
 * A source of completion events that must be armed before it signals, like a verbs completion channel: after
 * {@link #arm()} the next completion makes {@link #fd()} readable once; {@link #consumeEvents()} takes what is there.
 * Called on the progress thread only.
 */
public interface ArmableEventSource
{
    /** The file descriptor to poll for readability; non-blocking. */
    int fd();

    /** Ask for one event at the next completion ({@code ibv_req_notify_cq}). */
    void arm();

    /** Take (and in time acknowledge) every event ready on {@link #fd()}; returns how many. Never blocks. */
    int consumeEvents();
}

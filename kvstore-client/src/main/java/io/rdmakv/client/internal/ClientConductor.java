package io.rdmakv.client.internal;

import io.rdmakv.client.KvError;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;

/**
 * The client's housekeeping agent, run on the same thread as the transport's worker (one
 * {@link org.agrona.concurrent.CompositeAgent}): it re-posts operations the transport back-pressured, and expires
 * requests whose answer did not come in time. Both are what keeps "never fail for lack of credits" and "never hang"
 * true at once.
 */
final class ClientConductor implements Agent
{
    static final int ACTION_POST_READS = 1;
    static final int ACTION_SEND = 2;

    private static final long TIMEOUT_SCAN_INTERVAL_NANOS = 1_000_000;

    private final RequestSlots slots;
    /** Routes requests of a lost connection again (a replicated cluster); null until the router is wired. */
    private volatile Redirector redirector;
    private final OneSidedGetProtocol getProtocol;
    private final RpcProtocol rpc;
    /** Each slot is deferred at most once at a time, so the slot count bounds the queue. */
    private final ManyToOneConcurrentArrayQueue<RequestSlot> deferred;
    private long nextTimeoutScanNanos;
    /** Wakes the progress thread after a deferral from another thread (the progress's {@code signal}). */
    private volatile Runnable wakeUp = () -> { };

    ClientConductor(final RequestSlots slots, final OneSidedGetProtocol getProtocol, final RpcProtocol rpc)
    {
        this.slots = slots;
        this.getProtocol = getProtocol;
        this.rpc = rpc;
        this.deferred = new ManyToOneConcurrentArrayQueue<>(Math.max(2, slots.capacity()));
    }

    void wakeUpWith(final Runnable wakeUp)
    {
        this.wakeUp = wakeUp;
    }

    /** Retry {@code action} of {@code slot} on a later duty cycle. Any thread. */
    void defer(final RequestSlot slot, final int action)
    {
        slot.deferredAction = action;
        while (!deferred.offer(slot))
        {
            // Cannot happen while each slot is deferred at most once; spin rather than lose a request.
            Thread.onSpinWait();
        }
        wakeUp.run();
    }

    @Override
    public int doWork()
    {
        int work = 0;
        final long now = System.nanoTime();
        for (int i = deferred.size(); i > 0; i--)
        {
            final RequestSlot slot = deferred.poll();
            if (slot == null)
            {
                break;
            }
            work++;
            retry(slot, now);
        }
        if (now - nextTimeoutScanNanos >= 0)
        {
            nextTimeoutScanNanos = now + TIMEOUT_SCAN_INTERVAL_NANOS;
            work += expire(now);
        }
        return work;
    }

    private void retry(final RequestSlot slot, final long now)
    {
        final boolean late = now - slot.deadlineNanos > 0;
        if (slot.deferredAction == ACTION_POST_READS)
        {
            if (late)
            {
                getProtocol.failUnposted(slot, TransportStatus.TIMED_OUT);
            }
            else
            {
                getProtocol.resume(slot);
            }
        }
        else if (late)
        {
            slot.phase = RequestSlot.PHASE_IDLE;
            slot.fail(KvError.TIMED_OUT, slot.describe() + " could not be sent before its deadline " +
                "(transport back-pressured)");
            slots.complete(slot);
        }
        else
        {
            rpc.resume(slot);
        }
    }

    /** Time out requests still waiting for an answer past their deadline. */
    private int expire(final long now)
    {
        int expired = 0;
        for (int i = 0, n = slots.capacity(); i < n; i++)
        {
            final RequestSlot slot = slots.slot(i);
            if (slot.phase == RequestSlot.PHASE_AWAIT_RESPONSE && now - slot.deadlineNanos > 0 &&
                RequestSlots.claim(slot, RequestSlot.PHASE_AWAIT_RESPONSE))
            {
                slot.fail(KvError.TIMED_OUT, slot.describe() + " got no answer from node " +
                    (slot.session == null ? "?" : slot.session.info().nodeId()) + " within the request timeout");
                slots.complete(slot);
                expired++;
            }
        }
        return expired;
    }

    /** A node's connection is gone: fail what waits for its answer (progress thread). */
    void onSessionLost(final NodeSession session, final String why)
    {
        for (int i = 0, n = slots.capacity(); i < n; i++)
        {
            final RequestSlot slot = slots.slot(i);
            if (slot.phase == RequestSlot.PHASE_AWAIT_RESPONSE && slot.session == session &&
                RequestSlots.claim(slot, RequestSlot.PHASE_AWAIT_RESPONSE))
            {
                final String lost = slot.describe() + " lost its connection to node " + session.info().nodeId() +
                    " at " + session.info().dataAddress() + ": " + why;
                if (redirector != null && redirector.reroute(slot, lost))
                {
                    continue;
                }
                slot.fail(KvError.CONNECTION_FAILED, lost);
                slots.complete(slot);
            }
        }
    }

    /** Requests of a lost connection go to {@code redirector} first (see {@link Redirector#reroute}). */
    void reroutesWith(final Redirector redirector)
    {
        this.redirector = redirector;
    }

    @Override
    public void onClose()
    {
        slots.failAll(KvError.CLOSED, "the client was closed");
    }

    @Override
    public String roleName()
    {
        return "rdmakv-client-conductor";
    }
}

package io.rdmakv.client.internal;

import io.rdmakv.client.KvError;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.Agent;

import java.util.function.Consumer;

/**
 * The client's housekeeping agent, run on the same thread as the transport's worker (one
 * {@link org.agrona.concurrent.CompositeAgent}): it re-posts operations the transport back-pressured, and expires
 * requests whose answer did not come in time. Both are what keeps "never fail for lack of credits" and "never hang"
 * true at once.
 */
final class ClientConductor implements Agent
{
    private static final long TIMEOUT_SCAN_INTERVAL_NANOS = 1_000_000;

    private final RequestSlots slots;
    private final DeferredPosts deferred;
    private final OneSidedGetProtocol getProtocol;
    private final RpcProtocol rpc;
    private final Consumer<RequestSlot> retry = this::retry;
    private long nextTimeoutScanNanos;

    ClientConductor(final RequestSlots slots, final DeferredPosts deferred, final OneSidedGetProtocol getProtocol,
        final RpcProtocol rpc)
    {
        this.slots = slots;
        this.deferred = deferred;
        this.getProtocol = getProtocol;
        this.rpc = rpc;
    }

    @Override
    public int doWork()
    {
        int work = deferred.drain(retry);
        final long now = System.nanoTime();
        if (now - nextTimeoutScanNanos >= 0)
        {
            nextTimeoutScanNanos = now + TIMEOUT_SCAN_INTERVAL_NANOS;
            work += expire(now);
        }
        return work;
    }

    private void retry(final RequestSlot slot)
    {
        final boolean late = System.nanoTime() - slot.deadlineNanos > 0;
        if (slot.deferredAction == DeferredPosts.POST_READS)
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

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

    private final RequestSlots requestSlots;
    private final DeferredPosts deferred;
    private final OneSidedGetProtocol getProtocol;
    private final RpcProtocol rpc;
    private final Consumer<RequestSlot> retry = this::retry;
    private long nextTimeoutScanNanos;

    ClientConductor(final RequestSlots requestSlots, final DeferredPosts deferred, final OneSidedGetProtocol getProtocol,
        final RpcProtocol rpc)
    {
        this.requestSlots = requestSlots;
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

    private void retry(final RequestSlot requestSlot)
    {
        final boolean late = System.nanoTime() - requestSlot.deadlineNanos > 0;
        if (requestSlot.deferredAction == DeferredPosts.POST_READS)
        {
            if (late)
            {
                getProtocol.failUnposted(requestSlot, TransportStatus.TIMED_OUT);
            }
            else
            {
                getProtocol.resume(requestSlot);
            }
        }
        else if (late)
        {
            requestSlot.phase = RequestSlot.PHASE_IDLE;
            requestSlot.fail(KvError.TIMED_OUT, requestSlot.describe() + " could not be sent before its deadline " +
                "(transport back-pressured)");
            requestSlots.complete(requestSlot);
        }
        else
        {
            rpc.resume(requestSlot);
        }
    }

    /** Time out requests still waiting for an answer past their deadline. */
    private int expire(final long now)
    {
        int expired = 0;
        for (int i = 0, n = requestSlots.capacity(); i < n; i++)
        {
            final RequestSlot requestSlot = requestSlots.requestSlot(i);
            if (requestSlot.phase == RequestSlot.PHASE_AWAIT_RESPONSE && now - requestSlot.deadlineNanos > 0 &&
                RequestSlots.claim(requestSlot, RequestSlot.PHASE_AWAIT_RESPONSE))
            {
                requestSlot.fail(KvError.TIMED_OUT, requestSlot.describe() + " got no answer from node " +
                    (requestSlot.session == null ? "?" : requestSlot.session.info().nodeId()) + " within the request timeout");
                requestSlots.complete(requestSlot);
                expired++;
            }
        }
        return expired;
    }

    @Override
    public void onClose()
    {
        requestSlots.failAll(KvError.CLOSED, "the client was closed");
    }

    @Override
    public String roleName()
    {
        return "rdmakv-client-conductor";
    }
}

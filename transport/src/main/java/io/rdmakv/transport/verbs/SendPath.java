package io.rdmakv.transport.verbs;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import org.agrona.DirectBuffer;
import org.agrona.ExpandableRingBuffer;
import org.agrona.MutableDirectBuffer;

import java.util.function.Consumer;

/**
 * Everything one endpoint posts, within its limits: send credits (receives the peer has posted), send-queue slots
 * and read bounce space. A message is cut into fragments of the peer's receive-buffer size, each a
 * Send-with-immediate that uses one credit and carries the credits we give back ({@link ImmediateData}); the peer
 * starts with its receive depth minus one credit, the last receive being kept for explicit credit messages, so a post
 * never fails for lack of room. Only the last fragment of a message with a handler, every read, and every
 * {@code signalInterval}-th other send are signaled; sends up to the QP's inline limit are inline ({@link SendFlags},
 * which counts them in {@link #counts()} with the doorbells). What does not fit waits in the {@link PendingQueue}, in
 * order.
 *
 * <p>Not thread-safe: every call is made under the owning endpoint's lock (its window's).
 */
final class SendPath
{
    private final EndpointResources res;
    private final SendQueueRing ring;
    private final PendingQueue pending;
    private final Consumer<String> failures;
    private final ExpandableRingBuffer.MessageConsumer pendingSendConsumer = this::postPendingPayload;
    private final PostCounts counts = new PostCounts();
    private final SendFlags flags;

    private boolean open;
    private int sendCredits;
    private int creditsToReturn;
    private int creditThreshold;
    private int peerFragment;
    private int trackedInRing;
    private boolean lastPostComplete;
    private PendingQueue.Op drainingOp;

    /**
     * @param failures told (under the monitor) when a post failed; the path is closed by then.
     */
    SendPath(final EndpointResources res, final SendQueueRing ring, final PendingQueue pending,
        final VerbsConfig config, final Consumer<String> failures)
    {
        this.res = res;
        this.ring = ring;
        this.pending = pending;
        this.failures = failures;
        this.flags = new SendFlags(config.signalInterval, res.qp.maxInline, counts);
    }

    /** This endpoint's post-side counts; read and written under the endpoint's lock. */
    PostCounts counts()
    {
        return counts;
    }

    /** Credits and fragment size from the peer's handshake. */
    void connect(final int peerRecvDepth, final int peerFragmentBytes)
    {
        sendCredits = peerRecvDepth - 1;
        peerFragment = Math.min(res.fragmentBytes, peerFragmentBytes);
        creditThreshold = Math.max(1, Math.min(res.recvDepth() / 4, peerRecvDepth - 1));
    }

    /** Allow posting (the peer is ready) or stop it for good (closed or failed). */
    void open(final boolean isOpen)
    {
        open = isOpen;
    }

    boolean lastPostComplete()
    {
        return lastPostComplete;
    }

    /** Link send WR {@code previous} to {@code sendSlot} (a batch becomes one list, one doorbell). */
    void link(final int previous, final int sendSlot)
    {
        res.sendWrs.link(previous, sendSlot);
    }

    void addCredits(final int credits)
    {
        sendCredits += credits;
    }

    /** Receives were consumed and re-posted: that many more credits to give back. */
    void receivesConsumed(final int count)
    {
        creditsToReturn += count;
    }

    int sendCredits()
    {
        return sendCredits;
    }

    /** Operations in the send queue whose completion someone waits for. */
    int tracked()
    {
        return trackedInRing;
    }

    void untrack(final int count)
    {
        trackedInRing -= count;
    }

    void clearTracked()
    {
        trackedInRing = 0;
    }

    /**
     * Post as many fragments of a message as credits and send-queue slots allow, as one chain.
     *
     * @return bytes of the message posted so far (from {@code sentBytes} on), or -1 if posting failed;
     *         {@link #lastPostComplete()} tells whether the message is now fully posted.
     */
    int postFragments(final DirectBuffer src, final int srcOffset, final int totalLength, final int sentBytes,
        final long id, final CompletionHandler handler)
    {
        lastPostComplete = false;
        int sent = sentBytes;
        int first = -1;
        int previous = -1;
        final long now = System.nanoTime();
        do
        {
            if (ring.free() == 0 || sendCredits == 0)
            {
                break;
            }
            final int chunk = Math.min(peerFragment, totalLength - sent);
            final boolean last = sent + chunk == totalLength;
            final boolean tracked = last && handler != null;
            final int sendSlot = ring.claim(SendQueueRing.KIND_SEND, id, tracked ? handler : null, tracked, now);
            if (tracked)
            {
                trackedInRing++;
            }
            res.view.putBytes(res.sendOffset(sendSlot), src, srcOffset + (sent - sentBytes), chunk);
            final int imm = ImmediateData.encode(takeCreditsToReturn(), !last, false);
            res.sendWrs.prepareSend(sendSlot, sendSlot, res.sendAddress(sendSlot), chunk, res.lkey,
                flags.send(chunk, tracked), imm);
            if (previous >= 0)
            {
                res.sendWrs.link(previous, sendSlot);
            }
            else
            {
                first = sendSlot;
            }
            previous = sendSlot;
            sendCredits--;
            sent += chunk;
            if (last)
            {
                lastPostComplete = true;
            }
        }
        while (sent < totalLength);
        if (first >= 0 && !postChain(first))
        {
            return -1;
        }
        return sent - sentBytes;
    }

    int prepareRead(final long id, final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
    {
        final int bounce = ring.allocateBounce(length);
        if (bounce < 0)
        {
            return -1;
        }
        final int span = ring.lastSpan();
        final int sendSlot = ring.claim(SendQueueRing.KIND_READ, id, handler, true, System.nanoTime());
        ring.bounceSpan[sendSlot] = span;
        ring.bounceOffset[sendSlot] = bounce;
        ring.destination[sendSlot] = destination;
        ring.destinationOffset[sendSlot] = destinationOffset;
        ring.length[sendSlot] = length;
        trackedInRing++;
        res.sendWrs.prepareRead(sendSlot, sendSlot, res.bounceAddress(bounce), length, res.lkey, remoteAddress,
            remoteKey.nativeKey(), flags.read());
        return sendSlot;
    }

    /**
     * Claim a send-queue slot for a memory-window work request (bind or local invalidation), tracked with
     * {@code handler}; the caller writes the work request into the slot and posts it.
     *
     * @return the slot, or -1 when the send queue is full.
     */
    int claimWindowOp(final long id, final CompletionHandler handler)
    {
        if (ring.free() == 0)
        {
            return -1;
        }
        final int sendSlot = ring.claim(SendQueueRing.KIND_WINDOW, id, handler, true, System.nanoTime());
        trackedInRing++;
        return sendSlot;
    }

    boolean postChain(final int firstSlot)
    {
        final int rc = res.postSend(firstSlot);
        flags.sendDoorbell();
        if (rc != 0)
        {
            open = false;
            failures.accept("ibv_post_send failed: " + LibIbverbs.describeErrno(rc));
            return false;
        }
        return true;
    }

    private int takeCreditsToReturn()
    {
        final int credits = Math.min(creditsToReturn, ImmediateData.MAX_CREDITS);
        creditsToReturn -= credits;
        return credits;
    }

    /** Post what waits, in order, while resources last. */
    void drainPending()
    {
        while (!pending.isEmpty() && open)
        {
            final PendingQueue.Op op = pending.peek();
            if (op.isRead)
            {
                if (ring.free() == 0)
                {
                    return;
                }
                final int sendSlot = prepareRead(op.requestId(), op.remoteAddress, op.remoteKey, op.length,
                    op.destination, op.destinationOffset, op.handler());
                if (sendSlot < 0)
                {
                    return;
                }
                pending.removeHead();
                if (!postChain(sendSlot))
                {
                    return;
                }
            }
            else
            {
                drainingOp = op;
                lastPostComplete = false;
                pending.consumeHeadPayload(pendingSendConsumer);
                drainingOp = null;
                if (!lastPostComplete)
                {
                    return;
                }
                pending.removeHead();
            }
        }
    }

    private boolean postPendingPayload(
        final MutableDirectBuffer buffer, final int offset, final int length, final int headOffset)
    {
        final PendingQueue.Op op = drainingOp;
        final int skip = op.sentBytes - op.storedFrom;
        final int posted = postFragments(buffer, offset + skip, op.length, op.sentBytes, op.requestId(),
            op.handler());
        if (posted > 0)
        {
            op.sentBytes += posted;
        }
        return lastPostComplete;
    }

    /** Send an explicit credit message when enough receives were re-posted and no send carried them back. */
    void maybeReturnCredits()
    {
        if (creditsToReturn < creditThreshold || ring.free() == 0 || !open)
        {
            return;
        }
        final int sendSlot = ring.claim(SendQueueRing.KIND_CREDIT, -1, null, false, System.nanoTime());
        final int imm = ImmediateData.encode(takeCreditsToReturn(), false, true);
        res.sendWrs.prepareSend(sendSlot, sendSlot, res.sendAddress(sendSlot), 0, res.lkey, flags.send(0, false), imm);
        postChain(sendSlot);
    }

    /** Re-post the receive buffers whose messages were consumed, as one list. */
    void repostReceives(final int[] indexes, final int count)
    {
        final int rc = res.postRecvList(indexes, count);
        flags.recvDoorbell(count);
        if (rc != 0)
        {
            open = false;
            failures.accept("ibv_post_recv failed: " + LibIbverbs.describeErrno(rc));
        }
    }
}

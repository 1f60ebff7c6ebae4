package io.rdmakv.transport.verbs;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.SEND_INLINE;
import static io.rdmakv.transport.verbs.ffi.VerbsLayout.SEND_SIGNALED;

/**
 * The flags of each send-queue work request, counted as they are decided (Kalia et al.'s selective signaling and
 * inline sends):
 * <ul>
 *   <li>a send is signaled when someone waits for its completion, or when {@code signalInterval} sends have gone
 *   unsignaled since the last signaled request: RC completes the send queue in order, so that one completion
 *   frees every slot before it, and the queue (depth at least twice the interval) never fills with unsignaled
 *   requests;</li>
 *   <li>a read is always signaled (its data is copied out on completion) and restarts the run;</li>
 *   <li>a send of at most the QP's {@code max_inline_data} bytes is inline: the device takes the payload with the
 *   work request, no DMA read of the send buffer.</li>
 * </ul>
 *
 * <p>Not thread-safe: under the owning endpoint's lock, like {@link SendPath}.
 */
final class SendFlags
{
    private final int signalInterval;
    private final int maxInline;
    private final PostCounts counts;
    private int unsignaledRun;

    SendFlags(final int signalInterval, final int maxInline, final PostCounts counts)
    {
        if (signalInterval < 1)
        {
            throw new IllegalArgumentException("signal interval must be at least 1: " + signalInterval);
        }
        this.signalInterval = signalInterval;
        this.maxInline = maxInline;
        this.counts = counts;
    }

    /** The flags of a send of {@code length} bytes; {@code mustSignal} when a handler waits for it. */
    int send(final int length, final boolean mustSignal)
    {
        counts.sends++;
        int flags = 0;
        if (mustSignal || ++unsignaledRun >= signalInterval)
        {
            unsignaledRun = 0;
            counts.signaledSends++;
            flags |= SEND_SIGNALED;
        }
        if (length <= maxInline)
        {
            counts.inlineSends++;
            flags |= SEND_INLINE;
        }
        return flags;
    }

    /** The flags of an RDMA Read: signaled, and the run of unsignaled sends starts over. */
    int read()
    {
        counts.reads++;
        unsignaledRun = 0;
        return SEND_SIGNALED;
    }

    /** A list of work requests went to the device in one {@code ibv_post_send}. */
    void sendDoorbell()
    {
        counts.sendDoorbells++;
    }

    /** {@code count} receives went to the device in one {@code ibv_post_recv}. */
    void recvDoorbell(final int count)
    {
        counts.recvs += count;
        counts.recvDoorbells++;
    }
}

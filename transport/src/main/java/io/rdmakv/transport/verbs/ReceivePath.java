package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.base.EndpointLifecycle;
import org.agrona.DirectBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive side of one endpoint. Every completed receive is one fragment of a message, or a credit-only message;
 * a single-fragment message is delivered straight out of its receive buffer in the worker's registered slice, a
 * longer one is joined in order by the {@link MessageAssembler}. Consumed buffers are re-posted once per poll batch,
 * as one list in one {@code ibv_post_recv}; the credits the peer returned (in the immediate) and the receives we now
 * owe it are handed to the {@link SendPath} then.
 *
 * <pre>
 *   poll batch:  receive(index, bytes, imm)  -> deliver or assemble; remember index, credits
 *                receive(...)                -> ...
 *   batch end:   flush()                     -> re-post remembered buffers as one list, add credits,
 *                                               post what waits, return credits if enough are owed
 * </pre>
 *
 * <p>Worker thread only; {@link #flush()} takes the endpoint's lock for the send side.
 */
final class ReceivePath
{
    private static final Logger LOG = LoggerFactory.getLogger(ReceivePath.class);

    private final VerbsEndpoint endpoint;
    private final VerbsWorker worker;
    private final EndpointResources res;
    private final SendPath sendPath;
    private final int maxMessageBytes;
    private final MessageAssembler assembler;
    private final int[] repostIndexes;
    private int repostCount;
    private int creditsReceived;
    private int consumedReceives;

    ReceivePath(final VerbsEndpoint endpoint, final VerbsWorker worker, final EndpointResources res,
        final SendPath sendPath, final int maxMessageBytes)
    {
        this.endpoint = endpoint;
        this.worker = worker;
        this.res = res;
        this.sendPath = sendPath;
        this.maxMessageBytes = maxMessageBytes;
        this.assembler = new MessageAssembler(maxMessageBytes);
        this.repostIndexes = new int[res.recvDepth()];
    }

    /** One successful receive completion: receive buffer {@code index} holds {@code byteLen} bytes. */
    void onReceive(final int index, final int byteLen, final int imm)
    {
        final EndpointLifecycle.State state = endpoint.state();
        if (state != EndpointLifecycle.State.CONNECTED && state != EndpointLifecycle.State.CONNECTING)
        {
            return;
        }
        if (ImmediateData.hasUnknownBits(imm) || index >= res.recvDepth() || byteLen > res.fragmentBytes)
        {
            endpoint.fail(TransportStatus.TRANSPORT_ERROR, "malformed message from peer (imm 0x" +
                Integer.toHexString(imm) + ", " + byteLen + " bytes)");
            return;
        }
        endpoint.activateAccepted();
        if (!ImmediateData.isCreditOnly(imm))
        {
            final int offset = res.recvOffset(index);
            if (ImmediateData.isMore(imm) || assembler.inProgress())
            {
                final int length = assembler.append(res.view, offset, byteLen, ImmediateData.isMore(imm));
                if (length == MessageAssembler.TOO_LARGE)
                {
                    endpoint.fail(TransportStatus.MESSAGE_TOO_LARGE, "peer sent a message larger than " +
                        maxMessageBytes + " bytes");
                    return;
                }
                if (length >= 0)
                {
                    deliver(assembler.buffer(), 0, length);
                }
            }
            else
            {
                deliver(res.view, offset, byteLen);
            }
        }
        // Re-posted (and credits counted) once per poll batch, by flush: one ibv_post_recv for many.
        if (repostCount == 0)
        {
            worker.receivesToFlush(endpoint);
        }
        repostIndexes[repostCount++] = index;
        creditsReceived += ImmediateData.credits(imm);
        if (!ImmediateData.isCreditOnly(imm))
        {
            consumedReceives++;
        }
    }

    /** End of a poll batch: re-post consumed receives as one list, take in credits, post what waits. */
    void flush()
    {
        final int count = repostCount;
        repostCount = 0;
        synchronized (endpoint.lock())
        {
            final EndpointLifecycle.State state = endpoint.state();
            if (count == 0 || (state != EndpointLifecycle.State.CONNECTED && state != EndpointLifecycle.State.CONNECTING))
            {
                return;
            }
            sendPath.repostReceives(repostIndexes, count);
            sendPath.addCredits(creditsReceived);
            sendPath.receivesConsumed(consumedReceives);
            creditsReceived = 0;
            consumedReceives = 0;
            sendPath.drainPending();
            sendPath.maybeReturnCredits();
        }
    }

    private void deliver(final DirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            endpoint.handler().onMessage(endpoint, buffer, offset, length);
        }
        catch (final RuntimeException e)
        {
            LOG.warn("onMessage handler of {} threw; message dropped", endpoint, e);
        }
    }
}

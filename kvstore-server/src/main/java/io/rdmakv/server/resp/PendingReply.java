package io.rdmakv.server.resp;

import io.rdmakv.protocol.wire.Status;

/**
 * A reply in a connection's queue: ready at once (PING, ECHO, ...) or once each of its store requests was answered
 * (MGET of three keys: three GETs). Replies leave in the order their commands came, so a ready reply behind one that
 * waits, waits too. Event loop only.
 */
final class PendingReply
{
    /** Builds the reply from the answers of its requests, in request order. */
    @FunctionalInterface
    interface Combiner
    {
        RespReply combine(Status[] statuses, byte[][] payloads);
    }

    private final Status[] statuses;
    private final byte[][] payloads;
    private final Combiner combiner;
    private int left;
    private RespReply reply;

    private PendingReply(final RespReply reply, final int parts, final Combiner combiner)
    {
        this.reply = reply;
        this.statuses = new Status[parts];
        this.payloads = new byte[parts][];
        this.combiner = combiner;
        this.left = parts;
    }

    static PendingReply ready(final RespReply reply)
    {
        return new PendingReply(reply, 0, null);
    }

    static PendingReply waitingFor(final int parts, final Combiner combiner)
    {
        return new PendingReply(null, parts, combiner);
    }

    int parts()
    {
        return statuses.length;
    }

    /** Request {@code index} was answered; the reply is built when it was the last. */
    void answered(final int index, final Status status, final byte[] payload)
    {
        statuses[index] = status;
        payloads[index] = payload;
        if (--left == 0)
        {
            reply = combiner.combine(statuses, payloads);
        }
    }

    /** The reply, or null while a request is unanswered. */
    RespReply reply()
    {
        return reply;
    }
}

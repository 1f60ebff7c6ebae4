package io.rdmakv.server.resp;

import io.rdmakv.protocol.wire.Status;

/**
 * A reply in a connection's queue: ready at once (PING, ECHO, ...), once each of its store requests was answered
 * (MGET of three keys: three GETs), or after a run of requests each sent once the one before it was answered
 * ({@link #steps}: SET ... XX reads the key's data version, then writes if that version is still the key's). Replies
 * leave in the order their commands came, so a ready reply behind one that waits, waits too. Event loop only.
 */
final class PendingReply
{
    /** Builds the reply from the answers of its requests, in request order. */
    @FunctionalInterface
    interface Combiner
    {
        RespReply combine(Status[] statuses, byte[][] payloads);
    }

    /**
     * A command of several requests on one key, one at a time: each answer decides the next request (sent through
     * the connection with this reply as its owner, index 0) or the reply. The connection sends nothing of its later
     * commands before the reply is ready, so the steps are not interleaved with them.
     */
    @FunctionalInterface
    interface Steps
    {
        /**
         * The step's request was answered ({@code version}: the answer's data version: a GET's value's, a TTL
         * read's, the present one of a CONDITION_FAILED).
         *
         * @return the reply, or null when the next request was sent.
         */
        RespReply next(Status status, long version, byte[] payload);
    }

    /** A password check in progress ({@link #afterCheck}), or null. */
    private java.util.concurrent.CompletableFuture<Boolean> check;
    private java.util.function.Function<Boolean, RespReply> afterCheck;
    private final Status[] statuses;
    private final byte[][] payloads;
    private final Combiner combiner;
    private final Steps steps;
    private int left;
    private RespReply reply;

    private PendingReply(final RespReply reply, final int parts, final Combiner combiner, final Steps steps)
    {
        this.reply = reply;
        this.steps = steps;
        this.statuses = new Status[parts];
        this.payloads = new byte[parts][];
        this.combiner = combiner;
        this.left = parts;
    }

    static PendingReply ready(final RespReply reply)
    {
        return new PendingReply(reply, 0, null, null);
    }

    static PendingReply waitingFor(final int parts, final Combiner combiner)
    {
        return new PendingReply(null, parts, combiner, null);
    }

    /** A reply of {@code steps}: its first request is sent by the caller, each next one by {@code steps}. */
    static PendingReply steps(final Steps steps)
    {
        return new PendingReply(null, 1, null, steps);
    }

    /**
     * A reply decided by a password check done off the event loop ({@link CredentialChecks}): {@code then} runs on the
     * loop with its outcome (it may change the session) and makes the reply. The connection executes nothing after
     * this command until then.
     */
    static PendingReply afterCheck(final java.util.concurrent.CompletableFuture<Boolean> check,
        final java.util.function.Function<Boolean, RespReply> then)
    {
        final PendingReply reply = new PendingReply(null, 0, null, null);
        reply.check = check;
        reply.afterCheck = then;
        return reply;
    }

    /** The password check this reply waits for, or null. */
    java.util.concurrent.CompletableFuture<Boolean> check()
    {
        return check;
    }

    /** Event loop: the check ended ({@code ok}: the password matched); the reply is made. */
    void checked(final boolean ok)
    {
        reply = afterCheck.apply(ok);
        check = null;
        afterCheck = null;
    }

    /** Whether this reply's requests go one at a time ({@link #steps}). */
    boolean stepped()
    {
        return steps != null;
    }

    int parts()
    {
        return statuses.length;
    }

    /** Request {@code index} was answered; the reply is built when it was the last. */
    void answered(final int index, final Status status, final long version, final byte[] payload)
    {
        if (steps != null)
        {
            reply = steps.next(status, version, payload);
            return;
        }
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

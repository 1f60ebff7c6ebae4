package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;

/**
 * The answer of a request that wrote nothing ({@link WritePath#answerUnwritten}), or of a GET that read RocksDB
 * ({@link WritePath#answerRead}: {@code read}, its value a copy, null when absent), kept while writes taken before it
 * are not answered yet. Its parts are {@link WriteOutcome#unwritten}'s or {@link WriteOutcome#read}'s.
 */
public record UnwrittenAnswer(Endpoint endpoint, long correlationId, Status status, long dataVersion,
    long expiryMillis, String reason, boolean read, byte[] value)
{
    /** A decision that wrote nothing. */
    public UnwrittenAnswer(final Endpoint endpoint, final long correlationId, final Status status,
        final long dataVersion, final long expiryMillis, final String reason)
    {
        this(endpoint, correlationId, status, dataVersion, expiryMillis, reason, false, null);
    }

    /** A GET's answer: {@code value} (null: NOT_FOUND) with its data version. */
    public static UnwrittenAnswer read(final Endpoint endpoint, final long correlationId, final byte[] value,
        final long dataVersion)
    {
        return new UnwrittenAnswer(endpoint, correlationId, value == null ? Status.NOT_FOUND : Status.OK, dataVersion,
            0, null, true, value);
    }

    /** Answer it through {@code outcome}. */
    public void answer(final WriteOutcome outcome)
    {
        if (read)
        {
            outcome.read(endpoint, correlationId, value, dataVersion);
            return;
        }
        outcome.unwritten(endpoint, correlationId, status, dataVersion, expiryMillis, reason);
    }

    /**
     * Answer it failed instead, because a write taken before it failed (its decision may have read that write, which is
     * now never answered here): {@code WRONG_NODE} passes on with its reason (the owner to ask), anything else is
     * {@code BUSY}; both are retryable, and nothing was written.
     */
    public void fail(final WriteOutcome outcome, final Status failure, final String failureReason)
    {
        if (failure == Status.WRONG_NODE)
        {
            outcome.failed(endpoint, correlationId, Status.WRONG_NODE, failureReason);
            return;
        }
        outcome.failed(endpoint, correlationId, Status.BUSY, "a write taken before this request failed (" + failure +
            (failureReason == null ? "" : ": " + failureReason) + "), and its answer may have depended on it: retry");
    }
}

package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;

/**
 * The answer of a request that wrote nothing ({@link WritePath#answerUnwritten}), kept while writes taken before it are
 * not answered yet. Its parts are {@link WriteOutcome#unwritten}'s.
 */
public record UnwrittenAnswer(Endpoint endpoint, long correlationId, Status status, long dataVersion,
    long expiryMillis, String reason)
{
    /** Answer it through {@code outcome}. */
    public void answer(final WriteOutcome outcome)
    {
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

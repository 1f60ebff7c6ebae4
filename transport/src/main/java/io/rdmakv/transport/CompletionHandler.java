package io.rdmakv.transport;

/** Completion of one operation, on the worker's progress thread. */
@FunctionalInterface
public interface CompletionHandler
{
    /**
     * @param status    {@link TransportStatus#OK} or the reason the operation failed.
     * @param requestId the id the operation returned when it was started.
     */
    void onComplete(TransportStatus status, long requestId);
}

package io.rdmakv.client;

/**
 * An asynchronous request was refused at once because the client's request queue was full
 * ({@link KvClientBuilder#maxQueuedRequests(int)}): {@link KvError#BACK_PRESSURE}. Nothing was sent; the caller may
 * retry once some of its outstanding futures have completed. Carries no stack trace (it is flow control, and cheap).
 */
public final class KvBackPressureException extends KvException
{
    KvBackPressureException(final String message)
    {
        super(KvError.BACK_PRESSURE, message, false); // flow control, not a fault: no stack trace to fill
    }
}

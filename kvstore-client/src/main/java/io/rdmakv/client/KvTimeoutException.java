package io.rdmakv.client;

/**
 * No answer came within the request timeout (counted from the call, time spent in the client's queue included), or
 * no connection within the connect timeout: {@link KvError#TIMED_OUT}. A timed-out PUT or DELETE may still have been
 * applied by the node.
 */
public final class KvTimeoutException extends KvException
{
    KvTimeoutException(final String message, final Throwable cause)
    {
        super(KvError.TIMED_OUT, message, cause);
    }
}

package io.rdmakv.client;

/**
 * The node answered the request with an error: {@link KvError#KEY_TOO_LARGE}, {@link KvError#VALUE_TOO_LARGE},
 * {@link KvError#STORE_FULL}, {@link KvError#STORE_FAILED}, {@link KvError#SERVER_BUSY},
 * {@link KvError#REQUEST_REFUSED} or {@link KvError#SERVER_ERROR}. The message carries the node's status and text.
 */
public final class KvServerException extends KvException
{
    KvServerException(final KvError error, final String message)
    {
        super(error, message, null);
    }
}

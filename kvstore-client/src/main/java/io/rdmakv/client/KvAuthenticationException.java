package io.rdmakv.client;

/**
 * A node refused this client's credential ({@link KvClientBuilder#secret(String)}) or its session ticket:
 * {@link KvError#AUTHENTICATION_FAILED}. Retrying with the same credential fails the same way.
 */
public final class KvAuthenticationException extends KvException
{
    KvAuthenticationException(final String message, final Throwable cause)
    {
        super(KvError.AUTHENTICATION_FAILED, message, cause);
    }
}

package io.rdmakv.server;

/**
 * The server could not start. The message is meant for the operator as is (e.g. the memlock refusal of the pool,
 * verbatim); the cause carries the details.
 */
public class ServerStartException extends RuntimeException
{
    public ServerStartException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

package io.rdmakv.cli.bench;

/** A bench run that cannot start or go on: bad settings, an unreachable server, a driver that failed. */
public final class BenchException extends RuntimeException
{
    public BenchException(final String message)
    {
        super(message);
    }

    public BenchException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

package io.rdmakv.bench.perf;

/** A baseline run that cannot go on: bad arguments, no server, a failed or stalled operation. */
public final class PerfException extends RuntimeException
{
    public PerfException(final String message)
    {
        super(message);
    }
}

package io.rdmakv.pool;

/**
 * The arena could not be locked in memory under {@link PinPolicy#REQUIRED}: {@code RLIMIT_MEMLOCK} is below the
 * requested size, or {@code mlock} failed anyway. The message names the requested size, the current soft limit
 * (human-readable and in bytes) and the ways to raise the limit.
 */
public final class MemlockLimitException extends ArenaException
{
    private final long requestedBytes;
    private final long softLimitBytes;

    public MemlockLimitException(final String message, final long requestedBytes, final long softLimitBytes)
    {
        super(message);
        this.requestedBytes = requestedBytes;
        this.softLimitBytes = softLimitBytes;
    }

    public long requestedBytes()
    {
        return requestedBytes;
    }

    /** The soft limit at the time of the failure; {@link MemlockLimit#UNLIMITED} if it was unlimited. */
    public long softLimitBytes()
    {
        return softLimitBytes;
    }
}

package io.rdmakv.server.store;

import org.rocksdb.RocksDBException;
import org.rocksdb.Status;

/**
 * A failure of the durable store (RocksDB): open, read, write, sync or close. {@link #noSpace()} tells a full disk
 * (RocksDB's {@code NoSpace} status, ENOSPC) from other failures: the node then refuses PUTs and serves DELETEs
 * ({@link DiskFullGuard}).
 */
public class StoreException extends RuntimeException
{
    private final boolean noSpace;

    public StoreException(final String message)
    {
        this(message, null, false);
    }

    public StoreException(final String message, final Throwable cause)
    {
        this(message, cause, noSpace(cause));
    }

    /** @param noSpace whether the failure is a full disk. */
    public StoreException(final String message, final Throwable cause, final boolean noSpace)
    {
        super(message, cause);
        this.noSpace = noSpace;
    }

    /** True when the store failed because its disk is full (ENOSPC). */
    public boolean noSpace()
    {
        return noSpace;
    }

    /** Whether RocksDB failed with its {@code NoSpace} status (a full disk; also the background error it keeps). */
    static boolean noSpace(final Throwable cause)
    {
        if (cause instanceof RocksDBException ex)
        {
            final Status status = ex.getStatus();
            if (status != null && status.getSubCode() == Status.SubCode.NoSpace)
            {
                return true;
            }
            final String message = ex.getMessage();
            return message != null && message.contains("No space left on device");
        }
        return cause instanceof StoreException se && se.noSpace();
    }
}

package io.rdmakv.server.store;

/** A failure of the durable store (RocksDB): open, read, write, sync or close. */
public class StoreException extends RuntimeException
{
    public StoreException(final String message)
    {
        super(message);
    }

    public StoreException(final String message, final Throwable cause)
    {
        super(message, cause);
    }
}

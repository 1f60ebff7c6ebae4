package io.rdmakv.pool;

/** The arena could not be mapped or configured as asked; thrown at start-up only, never on the data path. */
public class ArenaException extends RuntimeException
{
    public ArenaException(final String message)
    {
        super(message);
    }
}

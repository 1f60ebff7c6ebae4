package io.rdmakv.server.store;

/**
 * The one place a reader of client values from the store (the key pages of scans and range reads) turns a stored
 * value into what a client sees. Today a stored value is the client's bytes; a stored format with a header (version,
 * expiry) replaces this function only.
 */
final class StoredValues
{
    private StoredValues()
    {
    }

    /** The client's value of a stored value, or null when a reader must not see the key (never today). */
    static byte[] visible(final byte[] stored)
    {
        return stored;
    }
}

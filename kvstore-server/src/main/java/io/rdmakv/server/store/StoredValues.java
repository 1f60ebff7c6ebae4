package io.rdmakv.server.store;

import org.rocksdb.RocksIterator;

/**
 * The one place a reader of client values from the store (the key pages of scans and range reads) turns a stored
 * entry into what a client sees. Today a stored value is the client's bytes and every entry is visible; a stored
 * format with a header (version, expiry) changes these two functions only.
 */
final class StoredValues
{
    private StoredValues()
    {
    }

    /**
     * Whether a reader may see the entry {@code it} stands on (an expired one must not be). Never copies the value:
     * a keys-only scan examines up to a thousand keys a request whatever their values' size; a header would be read
     * with {@code RocksIterator.value(ByteBuffer)} into a small buffer, which copies only that many bytes.
     */
    static boolean visible(final RocksIterator it)
    {
        return true;
    }

    /** The client's value of the entry {@code it} stands on (a visible one). Allocates. */
    static byte[] value(final RocksIterator it)
    {
        return it.value();
    }
}

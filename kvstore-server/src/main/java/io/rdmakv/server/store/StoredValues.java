package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.ValueRecord;
import org.rocksdb.RocksIterator;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.LongSupplier;

/**
 * The one place a reader of client values from the store (the key pages of scans and range reads) turns a stored
 * entry into what a client sees: a stored entry is a {@link ValueRecord} (data version, expiry, then the client's
 * bytes); an expired one is invisible, on the node's clock, as to every node-side read. One per {@link KeyPages}
 * (request thread).
 */
final class StoredValues
{
    private final LongSupplier clockMillis;
    /** The header of the entry looked at: only these bytes are copied out of RocksDB to decide visibility. */
    private final ByteBuffer header = ByteBuffer.allocateDirect(ValueRecord.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);

    /** @param clockMillis the node's clock (ms since the epoch), which decides expiry. */
    StoredValues(final LongSupplier clockMillis)
    {
        this.clockMillis = clockMillis;
    }

    /**
     * Whether a reader may see the entry {@code it} stands on (an expired one must not be). Copies only the record's
     * header: a keys-only scan examines up to a thousand keys a request whatever their values' size.
     *
     * @throws StoreException when the entry is shorter than a record's header (not a record).
     */
    boolean visible(final RocksIterator it)
    {
        header.clear();
        final int length = it.value(header);
        if (length < ValueRecord.HEADER_LENGTH)
        {
            throw new StoreException("a stored entry of " + length + " bytes is not a value record (its header needs " +
                ValueRecord.HEADER_LENGTH + ")");
        }
        return !ValueRecord.expired(header.getLong(ValueRecord.EXPIRY_OFFSET), clockMillis.getAsLong());
    }

    /** The client's value of the entry {@code it} stands on (a visible one), without the record's header. Allocates. */
    static byte[] value(final RocksIterator it)
    {
        return ValueRecord.value(it.value());
    }
}

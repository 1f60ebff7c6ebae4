package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.ValueRecord;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.List;

/**
 * {@link MessageType#BATCH_WRITE_REQUEST}: PUTs and DELETEs of keys of ONE hash slot (keys sharing a hash tag,
 * {@code {tag}}), applied all or nothing: the node writes them as one RocksDB write batch (one WAL record) and
 * replicates them as one REPLICATE ({@link ReplicateRequestFlyweight#OP_BATCH}), acknowledged once. Keys of different
 * slots are refused whole ({@link Status#CROSSSLOT}), as Redis Cluster refuses them.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type BATCH_WRITE)      ...  0
 *  +---------------------------------------------------------------+
 *  |                     Entry count N (u32, 1..MAX_ENTRIES)       |  16
 *  +---------------------------------------------------------------+
 *  |                     Entries length E (u32)                    |  20
 *  +---------------------------------------------------------------+
 *  |                     Entries (E bytes, N entries)             ...  24
 *  +---------------------------------------------------------------+
 *  |                     Write id (24 B, only with FLAG_WRITE_ID)  ...  24 + E
 *  +---------------------------------------------------------------+
 *  body length = 8 + E (+ 24)
 *
 *  Entry (8 B + K + V):
 *  +---------------+---------------+-------------------------------+
 *  |    Op (u8)    |     0 (u8)    |       Key length K (u16)      |  0
 *  +---------------+---------------+-------------------------------+
 *  |                     Value length V (u32; 0 for a DELETE)      |  4
 *  +---------------------------------------------------------------+
 *  |                     Key bytes (K, 1..1024)                   ...  8
 *  +---------------------------------------------------------------+
 *  |                     Value bytes (V)                          ...  8 + K
 *  +---------------------------------------------------------------+
 *  Op: 1 PUT, 2 DELETE. A key may appear once only (the answer would otherwise depend on entry order).
 *  Answer: RESPONSE OK once every entry is durable (and replicated); any error: nothing was written.
 * </pre>
 * The same entry layout carries the batch to replicas, there with each PUT's value as its durable record (the 18-B
 * {@link ValueRecord} header, then the value): see {@link #recordEntriesLength}, which counts that
 * header for every PUT, so a batch a node accepts always fits the REPLICATE that carries it.
 */
public final class BatchWriteRequestFlyweight extends MessageHeaderFlyweight
{
    public static final int OP_PUT = 1;
    public static final int OP_DELETE = 2;
    /** Most entries in one batch. */
    public static final int MAX_ENTRIES = 4096;
    /** Longest entries field: one longest key and one longest value (the REPLICATE of the batch adds nothing). */
    public static final int MAX_ENTRIES_LENGTH = ProtocolLimits.MAX_KEY_LENGTH + ProtocolLimits.MAX_FORMAT_VALUE_LENGTH;
    public static final int ENTRY_HEADER_LENGTH = 8;
    /** What a PUT's entry grows by when it carries its value's durable record (ValueRecord.HEADER_LENGTH). */
    public static final int RECORD_HEADER_LENGTH = ValueRecord.HEADER_LENGTH;

    public static final int COUNT_OFFSET = HEADER_LENGTH;
    public static final int ENTRIES_LENGTH_OFFSET = HEADER_LENGTH + 4;
    public static final int ENTRIES_OFFSET = HEADER_LENGTH + 8;
    public static final int FIXED_BODY_LENGTH = 8;

    @Override
    public BatchWriteRequestFlyweight header(final MessageType type, final long correlationId)
    {
        super.header(type, correlationId);
        return this;
    }

    @Override
    public BatchWriteRequestFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * Header checks, the count, every entry's op and lengths, and the entries against the body.
     *
     * @throws ProtocolException {@link ErrorCode#MALFORMED}, {@link ErrorCode#BAD_LENGTH},
     *                           {@link ErrorCode#KEY_TOO_LARGE}, {@link ErrorCode#VALUE_TOO_LARGE} or a header error.
     */
    @Override
    public BatchWriteRequestFlyweight validate()
    {
        super.validate();
        final long bodyLength = checkTypeAndFixedBody(MessageType.BATCH_WRITE_REQUEST, "batch write request",
            FIXED_BODY_LENGTH);
        final long entriesLength = buffer.getInt(offset + ENTRIES_LENGTH_OFFSET, ORDER) & 0xFFFF_FFFFL;
        if (FIXED_BODY_LENGTH + entriesLength + writeIdLength() != bodyLength)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, "entries length " + entriesLength +
                " disagrees with body length " + bodyLength);
        }
        checkEntries(buffer, entriesIndex(), (int)entriesLength, entryCount(), 0);
        validateWriteId();
        return this;
    }

    public int entryCount()
    {
        return buffer.getInt(offset + COUNT_OFFSET, ORDER);
    }

    public int entriesLength()
    {
        return buffer.getInt(offset + ENTRIES_LENGTH_OFFSET, ORDER);
    }

    public int entriesIndex()
    {
        return offset + ENTRIES_OFFSET;
    }

    /** Set the count, the entries (copied from {@code entries}) and the body length. */
    public BatchWriteRequestFlyweight write(final int count, final DirectBuffer entries, final int entriesOffset,
        final int entriesLength)
    {
        if (count < 1 || count > MAX_ENTRIES || entriesLength < 0 || entriesLength > MAX_ENTRIES_LENGTH)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "batch of " + count + " entries, " + entriesLength +
                " bytes");
        }
        bodyLength(FIXED_BODY_LENGTH + entriesLength);
        final MutableDirectBuffer b = mutable();
        b.putInt(offset + COUNT_OFFSET, count, ORDER);
        b.putInt(offset + ENTRIES_LENGTH_OFFSET, entriesLength, ORDER);
        b.putBytes(offset + ENTRIES_OFFSET, entries, entriesOffset, entriesLength);
        return this;
    }

    /**
     * Check {@code count} entries filling exactly {@code length} bytes at {@code index}: ops, key lengths (1..1024),
     * DELETEs without a value, each PUT's value at least {@code minPutValue} bytes (a record's header on a replica).
     *
     * @throws ProtocolException what is wrong, nothing read beyond {@code index + length}.
     */
    public static void checkEntries(final DirectBuffer buffer, final int index, final int length, final int count,
        final int minPutValue)
    {
        if (count < 1 || count > MAX_ENTRIES)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "batch entry count " + count + " not in 1.." +
                MAX_ENTRIES);
        }
        if (length > MAX_ENTRIES_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "batch entries of " + length + " bytes > " +
                MAX_ENTRIES_LENGTH);
        }
        final int end = index + length;
        int at = index;
        for (int i = 0; i < count; i++)
        {
            if (end - at < ENTRY_HEADER_LENGTH)
            {
                throw new ProtocolException(ErrorCode.BAD_LENGTH, "batch entry " + i + " truncated");
            }
            final int op = entryOp(buffer, at);
            final int keyLength = entryKeyLength(buffer, at);
            final long valueLength = buffer.getInt(at + 4, ORDER) & 0xFFFF_FFFFL;
            if (op != OP_PUT && op != OP_DELETE)
            {
                throw new ProtocolException(ErrorCode.MALFORMED, "batch entry " + i + ": op " + op);
            }
            if (keyLength == 0 || keyLength > ProtocolLimits.MAX_KEY_LENGTH)
            {
                throw new ProtocolException(ErrorCode.KEY_TOO_LARGE, "batch entry " + i + ": key length " +
                    keyLength + " not in 1.." + ProtocolLimits.MAX_KEY_LENGTH);
            }
            if (op == OP_DELETE ? valueLength != 0 : valueLength < minPutValue)
            {
                throw new ProtocolException(ErrorCode.MALFORMED, "batch entry " + i + ": value length " +
                    valueLength + " for op " + op);
            }
            if (ENTRY_HEADER_LENGTH + keyLength + valueLength > end - at)
            {
                throw new ProtocolException(ErrorCode.BAD_LENGTH, "batch entry " + i + " runs past the entries");
            }
            at += ENTRY_HEADER_LENGTH + keyLength + (int)valueLength;
        }
        if (at != end)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, (end - at) + " bytes after the last batch entry");
        }
    }

    public static int entryOp(final DirectBuffer buffer, final int entry)
    {
        return buffer.getByte(entry) & 0xFF;
    }

    public static int entryKeyLength(final DirectBuffer buffer, final int entry)
    {
        return buffer.getShort(entry + 2, ORDER) & 0xFFFF;
    }

    public static int entryValueLength(final DirectBuffer buffer, final int entry)
    {
        return buffer.getInt(entry + 4, ORDER);
    }

    public static int entryKeyIndex(final int entry)
    {
        return entry + ENTRY_HEADER_LENGTH;
    }

    public static int entryValueIndex(final DirectBuffer buffer, final int entry)
    {
        return entry + ENTRY_HEADER_LENGTH + entryKeyLength(buffer, entry);
    }

    /** Where the entry after {@code entry} starts. */
    public static int nextEntry(final DirectBuffer buffer, final int entry)
    {
        return entry + ENTRY_HEADER_LENGTH + entryKeyLength(buffer, entry) + entryValueLength(buffer, entry);
    }

    /** Write an entry's header at {@code entry} (key and value follow it); returns where its key goes. */
    public static int putEntryHeader(final MutableDirectBuffer buffer, final int entry, final int op,
        final int keyLength, final int valueLength)
    {
        buffer.putByte(entry, (byte)op);
        buffer.putByte(entry + 1, (byte)0);
        buffer.putShort(entry + 2, (short)keyLength, ORDER);
        buffer.putInt(entry + 4, valueLength, ORDER);
        return entry + ENTRY_HEADER_LENGTH;
    }

    /**
     * Encode entries: a PUT of {@code keys[i] -> values[i]}, or a DELETE of {@code keys[i]} where {@code values[i]} is
     * null (clients, RESP's MSET, tests).
     *
     * @throws ProtocolException an empty key, or more than {@link #MAX_ENTRIES_LENGTH} bytes.
     */
    public static byte[] encodeEntries(final List<byte[]> keys, final List<byte[]> values)
    {
        long length = 0;
        for (int i = 0; i < keys.size(); i++)
        {
            KeyRequestFlyweight.checkKeyLength(keys.get(i).length);
            final byte[] value = values.get(i);
            length += ENTRY_HEADER_LENGTH + keys.get(i).length + (value == null ? 0 : value.length);
        }
        if (length > MAX_ENTRIES_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "batch entries of " + length + " bytes > " +
                MAX_ENTRIES_LENGTH);
        }
        final byte[] entries = new byte[(int)length];
        final UnsafeBuffer out = new UnsafeBuffer(entries);
        int at = 0;
        for (int i = 0; i < keys.size(); i++)
        {
            final byte[] key = keys.get(i);
            final byte[] value = values.get(i);
            at = putEntryHeader(out, at, value == null ? OP_DELETE : OP_PUT, key.length,
                value == null ? 0 : value.length);
            out.putBytes(at, key);
            at += key.length;
            if (value != null)
            {
                out.putBytes(at, value);
                at += value.length;
            }
        }
        return entries;
    }

    /**
     * The entries' length once each PUT carries its record (what the node and its REPLICATE hold): the measure a
     * node's limit applies to, and the client checks before sending.
     */
    public static long recordEntriesLength(final int puts, final long entriesLength)
    {
        return entriesLength + (long)puts * RECORD_HEADER_LENGTH;
    }
}

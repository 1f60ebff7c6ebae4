package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.KeyHasher;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * An atomic multi-key write on its way down the write path: the entries of one hash slot in the layout of
 * {@link BatchWriteRequestFlyweight}, each PUT's value already its durable record (data version, expiry, value), as
 * RocksDB, the REPLICATE and the pool take it; each key hashed once. The request thread builds one from a client's
 * BATCH_WRITE ({@link #build}) or wraps a replica's REPLICATE BATCH ({@link #wrap}); a path that keeps the batch past
 * its call takes a {@link #copy}. Request thread only (a copy: whoever holds it).
 */
public final class KeyBatch
{
    private final HashedKey scratch;
    private final int[] entries;
    private final long[] hashes;
    private final int[] hashSlots;
    private DirectBuffer buffer;
    private int offset;
    private int length;
    private int count;
    private int puts;

    /** @param hasher hashes the keys of batches this one wraps (the node's, as a single key's). */
    public KeyBatch(final KeyHasher hasher)
    {
        this(new HashedKey(hasher), BatchWriteRequestFlyweight.MAX_ENTRIES);
    }

    private KeyBatch(final HashedKey scratch, final int capacity)
    {
        this.scratch = scratch;
        this.entries = new int[capacity];
        this.hashes = new long[capacity];
        this.hashSlots = new int[capacity];
    }

    /**
     * Wrap checked entries ({@link BatchWriteRequestFlyweight#checkEntries}) and hash each key; returns the hash
     * slot all keys share, or -1 when they do not (CROSSSLOT). A key may come twice: the later entry wins, as in
     * Redis's MSET (RocksDB's batch, the pool and the replicas apply entries in order).
     */
    public int wrap(final DirectBuffer entriesBuffer, final int entriesOffset, final int entriesLength,
        final int entryCount)
    {
        this.buffer = entriesBuffer;
        this.offset = entriesOffset;
        this.length = entriesLength;
        this.count = entryCount;
        this.puts = 0;
        int at = entriesOffset;
        boolean oneSlot = true;
        for (int i = 0; i < entryCount; i++)
        {
            final int keyLength = BatchWriteRequestFlyweight.entryKeyLength(entriesBuffer, at);
            scratch.wrap(entriesBuffer, BatchWriteRequestFlyweight.entryKeyIndex(at), keyLength);
            entries[i] = at;
            hashes[i] = scratch.hash();
            hashSlots[i] = scratch.hashSlot();
            if (BatchWriteRequestFlyweight.entryOp(entriesBuffer, at) == BatchWriteRequestFlyweight.OP_PUT)
            {
                puts++;
            }
            oneSlot &= hashSlots[i] == hashSlots[0];
            at = BatchWriteRequestFlyweight.nextEntry(entriesBuffer, at);
        }
        return oneSlot ? hashSlots[0] : -1;
    }

    /**
     * Build the node's batch into {@code into} (from index 0) from a client's entries (already wrapped by
     * {@link #wrap} over the request): each PUT's value becomes its record under {@code records}; keys and their
     * hashes are kept. Returns this, now over {@code into}.
     */
    public KeyBatch build(final MutableDirectBuffer into, final RecordMaker records)
    {
        int out = 0;
        for (int i = 0; i < count; i++)
        {
            final int at = entries[i];
            final int op = BatchWriteRequestFlyweight.entryOp(buffer, at);
            final int keyLength = BatchWriteRequestFlyweight.entryKeyLength(buffer, at);
            final int valueLength = BatchWriteRequestFlyweight.entryValueLength(buffer, at);
            final int recordLength = op == BatchWriteRequestFlyweight.OP_PUT ?
                BatchWriteRequestFlyweight.RECORD_HEADER_LENGTH + valueLength : 0;
            final int keyAt = BatchWriteRequestFlyweight.putEntryHeader(into, out, op, keyLength, recordLength);
            into.putBytes(keyAt, buffer, BatchWriteRequestFlyweight.entryKeyIndex(at), keyLength);
            if (op == BatchWriteRequestFlyweight.OP_PUT)
            {
                records.header(into, keyAt + keyLength);
                into.putBytes(keyAt + keyLength + BatchWriteRequestFlyweight.RECORD_HEADER_LENGTH, buffer,
                    BatchWriteRequestFlyweight.entryValueIndex(buffer, at), valueLength);
            }
            entries[i] = out;
            out = keyAt + keyLength + recordLength;
        }
        this.buffer = into;
        this.offset = 0;
        this.length = out;
        return this;
    }

    /** Writes a PUT's record header (its data version, no expiry) where its value goes. */
    @FunctionalInterface
    public interface RecordMaker
    {
        void header(MutableDirectBuffer buffer, int index);
    }

    /** A copy over its own bytes, with the keys' hashes (a write kept until its backups acknowledge it). */
    public KeyBatch copy()
    {
        final KeyBatch copy = new KeyBatch(new HashedKey(), count);
        final byte[] bytes = new byte[length];
        buffer.getBytes(offset, bytes);
        copy.buffer = new UnsafeBuffer(bytes);
        copy.offset = 0;
        copy.length = length;
        copy.count = count;
        copy.puts = puts;
        for (int i = 0; i < count; i++)
        {
            copy.entries[i] = entries[i] - offset;
        }
        System.arraycopy(hashes, 0, copy.hashes, 0, count);
        System.arraycopy(hashSlots, 0, copy.hashSlots, 0, count);
        return copy;
    }

    public int count()
    {
        return count;
    }

    /** How many entries are PUTs. */
    public int puts()
    {
        return puts;
    }

    /** The hash slot of every key. */
    public int hashSlot()
    {
        return hashSlots[0];
    }

    /** The encoded entries (what a REPLICATE BATCH carries). */
    public DirectBuffer buffer()
    {
        return buffer;
    }

    public int offset()
    {
        return offset;
    }

    public int length()
    {
        return length;
    }

    public boolean isPut(final int i)
    {
        return BatchWriteRequestFlyweight.entryOp(buffer, entries[i]) == BatchWriteRequestFlyweight.OP_PUT;
    }

    /** Entry {@code i}'s key, under the hashes it was wrapped with, in {@code into}. */
    public HashedKey key(final int i, final HashedKey into)
    {
        final int at = entries[i];
        return into.wrapHashed(buffer, BatchWriteRequestFlyweight.entryKeyIndex(at),
            BatchWriteRequestFlyweight.entryKeyLength(buffer, at), hashes[i], hashSlots[i]);
    }

    /** Entry {@code i}'s value (its record) index in {@link #buffer()}. */
    public int valueIndex(final int i)
    {
        return BatchWriteRequestFlyweight.entryValueIndex(buffer, entries[i]);
    }

    public int valueLength(final int i)
    {
        return BatchWriteRequestFlyweight.entryValueLength(buffer, entries[i]);
    }
}

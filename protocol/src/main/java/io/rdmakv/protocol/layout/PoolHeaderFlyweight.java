package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteOrder;

/**
 * The pool header at offset 0 of the pool. {@link #HEADER_LENGTH} bytes are reserved; the fields use the first two
 * cache lines. The {@link SlotOwnershipTable} follows it. Clients read it one-sided (or get its values in the handshake) and check magic and version first.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                  Magic "RDMAKV01" (8 ASCII bytes)             |  0
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                  Layout version (u32) = 3                     |  8
 *  +-------------------------------------------------------------+-+
 *  |                  Flags (u32)                                |C|  12  C = COMPLETE (bit 0)
 *  +-------------------------------------------------------------+-+
 *  |                  Epoch (u64)                                  |  16  bumped on restart / reload
 *  +---------------------------------------------------------------+
 *  |                  Pool size (u64)                              |  24
 *  +---------------------------------------------------------------+
 *  |                  Index offset (u64)                           |  32
 *  +---------------------------------------------------------------+
 *  |                  Bucket count (u64, power of two)             |  40
 *  +---------------------------------------------------------------+
 *  |                  Bucket size (u32) = 64                       |  48
 *  +---------------------------------------------------------------+
 *  |                  Slots per bucket (u32) = 8                   |  52
 *  +---------------------------------------------------------------+
 *  |                  Extents offset (u64)                         |  56
 *  +---------------------------------------------------------------+
 *  |                  Extents length (u64)                         |  64
 *  +---------------------------------------------------------------+
 *  |                  Key count (u64, informational)               |  72
 *  +---------------------------------------------------------------+
 *  |                  Node id (u32)                                |  80
 *  +---------------------------------------------------------------+
 *  |                  Reserved (u32)                               |  84
 *  +---------------------------------------------------------------+
 *  |                  Reserved up to 4096 B                       ...  88
 *  all fields little-endian
 * </pre>
 *
 * Flags are read and written with acquire/release semantics when the wrapped buffer is an {@link AtomicBuffer}
 * (the server's pool view), so a reader that sees {@link #FLAG_COMPLETE} also sees every slot published before it.
 */
public final class PoolHeaderFlyweight
{
    /** Bytes reserved for the header; the index starts at or after it. */
    public static final int HEADER_LENGTH = 4096;
    /** Bytes that carry fields; a one-sided read of the header needs only these. */
    public static final int ENCODED_LENGTH = 88;

    /**
     * 4: value extents carry the value's data version and expiry (header of 40 bytes, {@link ValueExtentFlyweight}).
     * 3: the slot ownership table ({@link SlotOwnershipTable}) follows the header and the index starts after it.
     * 2: value extents carry a state word (LIVE/RETIRED) outside their CRC, which covers bytes [8, end) (version 1
     * had a reserved word at 12 and the CRC from byte 4).
     */
    public static final int LAYOUT_VERSION = 4;
    /** "RDMAKV01" as eight ASCII bytes, read as a little-endian u64. */
    public static final long MAGIC = magic("RDMAKV01");

    /** Every key of the node is in the pool: a one-sided miss is a definitive not-found. */
    public static final int FLAG_COMPLETE = 1;

    public static final int MAGIC_OFFSET = 0;
    public static final int VERSION_OFFSET = 8;
    public static final int FLAGS_OFFSET = 12;
    public static final int EPOCH_OFFSET = 16;
    public static final int POOL_SIZE_OFFSET = 24;
    public static final int INDEX_OFFSET_OFFSET = 32;
    public static final int BUCKET_COUNT_OFFSET = 40;
    public static final int BUCKET_SIZE_OFFSET = 48;
    public static final int ENTRIES_PER_BUCKET_OFFSET = 52;
    public static final int EXTENTS_OFFSET_OFFSET = 56;
    public static final int EXTENTS_LENGTH_OFFSET = 64;
    public static final int KEY_COUNT_OFFSET = 72;
    public static final int NODE_ID_OFFSET = 80;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private DirectBuffer buffer;
    private MutableDirectBuffer mutableBuffer;
    private AtomicBuffer atomicBuffer;
    private int offset;

    /**
     * Wrap a header. Setters need a {@link MutableDirectBuffer}; ordered flag access needs an {@link AtomicBuffer}.
     *
     * @throws ProtocolException {@link ErrorCode#TRUNCATED} if fewer than {@link #ENCODED_LENGTH} bytes are present.
     */
    public PoolHeaderFlyweight wrap(final DirectBuffer buffer, final int offset)
    {
        if (offset < 0 || buffer.capacity() - offset < ENCODED_LENGTH)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "pool header needs " + ENCODED_LENGTH + " bytes at " + offset + ", capacity " + buffer.capacity());
        }
        this.buffer = buffer;
        this.mutableBuffer = buffer instanceof MutableDirectBuffer ? (MutableDirectBuffer)buffer : null;
        this.atomicBuffer = buffer instanceof AtomicBuffer ? (AtomicBuffer)buffer : null;
        this.offset = offset;
        return this;
    }

    /**
     * Write magic, version and geometry, with flags, epoch, key count zero; the usual first step of a new pool.
     */
    public PoolHeaderFlyweight initialise(final PoolGeometry geometry, final int nodeId, final long epoch)
    {
        final MutableDirectBuffer b = mutable();
        b.setMemory(offset, ENCODED_LENGTH, (byte)0);
        b.putLong(offset + MAGIC_OFFSET, MAGIC, ORDER);
        b.putInt(offset + VERSION_OFFSET, LAYOUT_VERSION, ORDER);
        b.putInt(offset + BUCKET_SIZE_OFFSET, IndexBucketFlyweight.BUCKET_LENGTH, ORDER);
        b.putInt(offset + ENTRIES_PER_BUCKET_OFFSET, IndexBucketFlyweight.ENTRY_COUNT, ORDER);
        geometry(geometry);
        epoch(epoch);
        nodeId(nodeId);
        return this;
    }

    /**
     * Check magic, layout version and the fixed bucket shape, and that the geometry fields are consistent.
     *
     * @throws ProtocolException {@link ErrorCode#BAD_MAGIC}, {@link ErrorCode#UNSUPPORTED_VERSION} or
     *                           {@link ErrorCode#BAD_GEOMETRY}.
     */
    public PoolHeaderFlyweight validate()
    {
        if (magic() != MAGIC)
        {
            throw new ProtocolException(ErrorCode.BAD_MAGIC, "pool header magic 0x" + Long.toHexString(magic()));
        }
        if (layoutVersion() != LAYOUT_VERSION)
        {
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION,
                "pool layout version " + layoutVersion() + ", expected " + LAYOUT_VERSION);
        }
        if (bucketSize() != IndexBucketFlyweight.BUCKET_LENGTH || entriesPerBucket() != IndexBucketFlyweight.ENTRY_COUNT)
        {
            throw new ProtocolException(ErrorCode.BAD_GEOMETRY,
                "bucket shape " + bucketSize() + " B x " + entriesPerBucket() + " slots is not 64 B x 8");
        }
        geometry();
        return this;
    }

    public long magic()
    {
        return buffer.getLong(offset + MAGIC_OFFSET, ORDER);
    }

    public int layoutVersion()
    {
        return buffer.getInt(offset + VERSION_OFFSET, ORDER);
    }

    /** Flags with acquire semantics when the buffer allows it. */
    public int flags()
    {
        if (atomicBuffer != null)
        {
            final int raw = atomicBuffer.getIntAcquire(offset + FLAGS_OFFSET);
            return NATIVE_LITTLE_ENDIAN ? raw : Integer.reverseBytes(raw);
        }
        return buffer.getInt(offset + FLAGS_OFFSET, ORDER);
    }

    /** Store flags with release semantics: every store before it is visible to whoever sees the new flags. */
    public PoolHeaderFlyweight flagsOrdered(final int flags)
    {
        atomic().putIntRelease(offset + FLAGS_OFFSET, NATIVE_LITTLE_ENDIAN ? flags : Integer.reverseBytes(flags));
        return this;
    }

    public boolean isComplete()
    {
        return (flags() & FLAG_COMPLETE) != 0;
    }

    /** Set or clear {@link #FLAG_COMPLETE} with a release store (single writer: the server). */
    public PoolHeaderFlyweight complete(final boolean complete)
    {
        final int flags = flags();
        return flagsOrdered(complete ? flags | FLAG_COMPLETE : flags & ~FLAG_COMPLETE);
    }

    public long epoch()
    {
        return buffer.getLong(offset + EPOCH_OFFSET, ORDER);
    }

    public PoolHeaderFlyweight epoch(final long epoch)
    {
        mutable().putLong(offset + EPOCH_OFFSET, epoch, ORDER);
        return this;
    }

    public long poolSize()
    {
        return buffer.getLong(offset + POOL_SIZE_OFFSET, ORDER);
    }

    public long indexOffset()
    {
        return buffer.getLong(offset + INDEX_OFFSET_OFFSET, ORDER);
    }

    public long bucketCount()
    {
        return buffer.getLong(offset + BUCKET_COUNT_OFFSET, ORDER);
    }

    public int bucketSize()
    {
        return buffer.getInt(offset + BUCKET_SIZE_OFFSET, ORDER);
    }

    public int entriesPerBucket()
    {
        return buffer.getInt(offset + ENTRIES_PER_BUCKET_OFFSET, ORDER);
    }

    public long extentsOffset()
    {
        return buffer.getLong(offset + EXTENTS_OFFSET_OFFSET, ORDER);
    }

    public long extentsLength()
    {
        return buffer.getLong(offset + EXTENTS_LENGTH_OFFSET, ORDER);
    }

    public long keyCount()
    {
        return buffer.getLong(offset + KEY_COUNT_OFFSET, ORDER);
    }

    public PoolHeaderFlyweight keyCount(final long keyCount)
    {
        mutable().putLong(offset + KEY_COUNT_OFFSET, keyCount, ORDER);
        return this;
    }

    public int nodeId()
    {
        return buffer.getInt(offset + NODE_ID_OFFSET, ORDER);
    }

    public PoolHeaderFlyweight nodeId(final int nodeId)
    {
        mutable().putInt(offset + NODE_ID_OFFSET, nodeId, ORDER);
        return this;
    }

    /**
     * The geometry these fields describe.
     *
     * @throws ProtocolException {@link ErrorCode#BAD_GEOMETRY} if they are inconsistent.
     */
    public PoolGeometry geometry()
    {
        return new PoolGeometry(poolSize(), indexOffset(), bucketCount(), extentsOffset(), extentsLength());
    }

    public PoolHeaderFlyweight geometry(final PoolGeometry geometry)
    {
        final MutableDirectBuffer b = mutable();
        b.putLong(offset + POOL_SIZE_OFFSET, geometry.poolSize(), ORDER);
        b.putLong(offset + INDEX_OFFSET_OFFSET, geometry.indexOffset(), ORDER);
        b.putLong(offset + BUCKET_COUNT_OFFSET, geometry.bucketCount(), ORDER);
        b.putLong(offset + EXTENTS_OFFSET_OFFSET, geometry.extentsOffset(), ORDER);
        b.putLong(offset + EXTENTS_LENGTH_OFFSET, geometry.extentsLength(), ORDER);
        return this;
    }

    private MutableDirectBuffer mutable()
    {
        if (mutableBuffer == null)
        {
            throw new IllegalStateException("pool header wrapped read-only; wrap a MutableDirectBuffer to write");
        }
        return mutableBuffer;
    }

    private AtomicBuffer atomic()
    {
        if (atomicBuffer == null)
        {
            throw new IllegalStateException("ordered stores need an AtomicBuffer");
        }
        return atomicBuffer;
    }

    private static long magic(final String text)
    {
        long value = 0;
        for (int i = text.length() - 1; i >= 0; i--)
        {
            value = (value << 8) | (text.charAt(i) & 0xFF);
        }
        return value;
    }
}

package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.charset.StandardCharsets;

/**
 * {@link MessageType#RESPONSE}: the answer to any request, matched by the header's correlation id.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type RESPONSE)         ...  0
 *  +-------------------------------+-------------------------------+
 *  |         Status (u16)          |     Read lease (u16, ms)      |  16
 *  +-------------------------------+-------------------------------+
 *  |                       Value length V (u32)                    |  20
 *  +---------------------------------------------------------------+
 *  |                       Version (u64)                           |  24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                       Value bytes (V)                        ...  32
 *  +---------------------------------------------------------------+
 *  body length = 16 + V
 * </pre>
 *
 * The value bytes are: the value for an OK GET; for an OK PUT whose value the node placed in its pool (version
 * non-zero), the {@link io.rdmakv.protocol.layout.IndexEntry} it published (u64, {@link #LOCATION_LENGTH} bytes), so
 * the writer learns where its value lives and can read it back one-sided; UTF-8 {@code key=value} lines for STATS;
 * the right node's UTF-8 {@code host:port} for {@link Status#WRONG_NODE}; an optional UTF-8 reason for other errors;
 * empty otherwise.
 *
 * <p>Read lease: how long, in milliseconds from the moment the client SENT the request, the client may serve GETs of
 * this node by one-sided reads ({@link #READ_LEASE_NONE}: no grant; {@link #READ_LEASE_UNBOUNDED}: the node has no
 * node lease to outlive, as on a single node). The node grants at most its remaining node lease minus a margin; the
 * client scales the grant down by the clock drift bound. Every answer may carry one, the ATTACH's included.
 */
public final class ResponseFlyweight extends MessageHeaderFlyweight
{
    public static final int STATUS_OFFSET = HEADER_LENGTH;
    public static final int READ_LEASE_OFFSET = HEADER_LENGTH + 2;
    /** Read lease field: no lease granted by this answer. */
    public static final int READ_LEASE_NONE = 0;
    /** Read lease field: unbounded (the node holds no expiring node lease). */
    public static final int READ_LEASE_UNBOUNDED = 0xFFFF;
    /** Largest bounded grant, in milliseconds. */
    public static final int READ_LEASE_MAX_MILLIS = 0xFFFE;
    public static final int VALUE_LENGTH_OFFSET = HEADER_LENGTH + 4;
    public static final int VERSION_OFFSET = HEADER_LENGTH + 8;
    public static final int VALUE_OFFSET = HEADER_LENGTH + 16;
    public static final int FIXED_BODY_LENGTH = 16;
    /** Value bytes of an OK PUT that carries the value's location: one index slot. */
    public static final int LOCATION_LENGTH = 8;
    /** Value bytes of an OK write that carries its data version: the location (0: not placed), then the version. */
    public static final int WRITTEN_LENGTH = 16;

    /** Covariant {@link MessageHeaderFlyweight#header}, so encoding chains: {@code wrap(..).header(..).key(..)}. */
    @Override
    public ResponseFlyweight header(final MessageType type, final long correlationId)
    {
        super.header(type, correlationId);
        return this;
    }

    @Override
    public ResponseFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * Header checks plus the value length against the body and a known status code.
     *
     * @throws ProtocolException {@link ErrorCode#TRUNCATED}, {@link ErrorCode#BAD_LENGTH},
     *                           {@link ErrorCode#MALFORMED} (unknown status) or a header error.
     */
    @Override
    public ResponseFlyweight validate()
    {
        super.validate();
        final long bodyLength = checkTypeAndFixedBody(MessageType.RESPONSE, "response", FIXED_BODY_LENGTH);
        final long valueLength = buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER) & 0xFFFF_FFFFL;
        if (FIXED_BODY_LENGTH + valueLength != bodyLength)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH,
                "value length " + valueLength + " disagrees with body length " + bodyLength);
        }
        if (status() == null)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "unknown status code " + statusCode());
        }
        return this;
    }

    public int statusCode()
    {
        return buffer.getShort(offset + STATUS_OFFSET, ORDER) & 0xFFFF;
    }

    /** The status, or {@code null} for an unknown code. */
    public Status status()
    {
        return Status.fromCode(statusCode());
    }

    /** Set the status and an empty value, version 0; the body length follows. */
    public ResponseFlyweight status(final Status status)
    {
        bodyLength(FIXED_BODY_LENGTH);
        final MutableDirectBuffer b = mutable();
        b.putShort(offset + STATUS_OFFSET, (short)status.code(), ORDER);
        b.putShort(offset + STATUS_OFFSET + 2, (short)0, ORDER);
        b.putInt(offset + VALUE_LENGTH_OFFSET, 0, ORDER);
        b.putLong(offset + VERSION_OFFSET, 0L, ORDER);
        return this;
    }

    /** The read lease this answer grants: milliseconds, {@link #READ_LEASE_NONE} or {@link #READ_LEASE_UNBOUNDED}. */
    public int readLeaseMillis()
    {
        return buffer.getShort(offset + READ_LEASE_OFFSET, ORDER) & 0xFFFF;
    }

    /** Set the read lease field (after {@link #status(Status)}, which clears it). */
    public ResponseFlyweight readLeaseMillis(final int grant)
    {
        if (grant < 0 || grant > READ_LEASE_UNBOUNDED)
        {
            throw new IllegalArgumentException("read lease grant must be 0..65535: " + grant);
        }
        mutable().putShort(offset + READ_LEASE_OFFSET, (short)grant, ORDER);
        return this;
    }

    public long version()
    {
        return buffer.getLong(offset + VERSION_OFFSET, ORDER);
    }

    public ResponseFlyweight version(final long version)
    {
        mutable().putLong(offset + VERSION_OFFSET, version, ORDER);
        return this;
    }

    public int valueLength()
    {
        return buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER);
    }

    public int valueIndex()
    {
        return offset + VALUE_OFFSET;
    }

    /** Set the value bytes and the body length (after {@link #status(Status)}). */
    public ResponseFlyweight value(final DirectBuffer source, final int sourceOffset, final int valueLength)
    {
        bodyLength(FIXED_BODY_LENGTH + valueLength);
        final MutableDirectBuffer b = mutable();
        b.putInt(offset + VALUE_LENGTH_OFFSET, valueLength, ORDER);
        b.putBytes(offset + VALUE_OFFSET, source, sourceOffset, valueLength);
        return this;
    }

    public ResponseFlyweight value(final byte[] value)
    {
        bodyLength(FIXED_BODY_LENGTH + value.length);
        final MutableDirectBuffer b = mutable();
        b.putInt(offset + VALUE_LENGTH_OFFSET, value.length, ORDER);
        b.putBytes(offset + VALUE_OFFSET, value);
        return this;
    }

    /** Set the value bytes to the index slot an OK PUT published (after {@link #status(Status)}). */
    public ResponseFlyweight location(final long indexEntry)
    {
        bodyLength(FIXED_BODY_LENGTH + LOCATION_LENGTH);
        final MutableDirectBuffer b = mutable();
        b.putInt(offset + VALUE_LENGTH_OFFSET, LOCATION_LENGTH, ORDER);
        b.putLong(offset + VALUE_OFFSET, indexEntry, ORDER);
        return this;
    }

    /**
     * The index slot an OK PUT carries, or {@link io.rdmakv.protocol.layout.IndexEntry#EMPTY} when it carries none.
     * A reader checks it against the pool geometry before following it, as any slot.
     */
    public long location()
    {
        final int length = valueLength();
        return length == LOCATION_LENGTH || length == WRITTEN_LENGTH ? buffer.getLong(offset + VALUE_OFFSET, ORDER) : 0L;
    }

    /**
     * An OK write's value: the index entry it published ({@code 0}: not placed) and the data version it wrote
     * ({@link #writtenVersion()}). Sets the body length.
     */
    public ResponseFlyweight written(final long indexEntry, final long dataVersion)
    {
        bodyLength(FIXED_BODY_LENGTH + WRITTEN_LENGTH);
        final MutableDirectBuffer b = mutable();
        b.putInt(offset + VALUE_LENGTH_OFFSET, WRITTEN_LENGTH, ORDER);
        b.putLong(offset + VALUE_OFFSET, indexEntry, ORDER);
        b.putLong(offset + VALUE_OFFSET + LOCATION_LENGTH, dataVersion, ORDER);
        return this;
    }

    /** The data version an OK write carries ({@link #written}), or 0 when it carries none. */
    public long writtenVersion()
    {
        return valueLength() >= WRITTEN_LENGTH ? buffer.getLong(offset + VALUE_OFFSET + LOCATION_LENGTH, ORDER) : 0L;
    }

    /** Set UTF-8 text as the value (STATS bodies, redirect addresses, error reasons); control path only. */
    public ResponseFlyweight text(final String text)
    {
        return value(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Copy the value into {@code destination}; returns its length. */
    public int getValue(final MutableDirectBuffer destination, final int destinationOffset)
    {
        final int valueLength = valueLength();
        destination.putBytes(destinationOffset, buffer, valueIndex(), valueLength);
        return valueLength;
    }

    /** The value as a new array (tools, tests, control path). */
    public byte[] value()
    {
        final byte[] value = new byte[valueLength()];
        buffer.getBytes(valueIndex(), value);
        return value;
    }

    /** The value decoded as UTF-8 (STATS, WRONG_NODE). */
    public String text()
    {
        return new String(value(), StandardCharsets.UTF_8);
    }
}

package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.nio.ByteOrder;

/**
 * The header every data-plane message starts with. Messages travel in the transport's send/recv, which frames them,
 * so the message length is known and the header's body length must agree with it exactly.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------+---------------+-------------------------------+
 *  |  Version (1)  |     Type      |            Flags              |  0
 *  +---------------+---------------+-------------------------------+
 *  |                      Body length (u32)                        |  4
 *  +---------------------------------------------------------------+
 *  |                      Correlation id (u64)                     |  8
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                      Body ...                                ...  16
 *  all fields little-endian
 * </pre>
 *
 * {@link #wrap} takes the bytes available: the received message's length when decoding, the buffer space when
 * encoding. Setters never write past it; getters of the body are safe once {@link #validate()} passed.
 */
public class MessageHeaderFlyweight
{
    public static final int HEADER_LENGTH = 16;
    public static final int PROTOCOL_VERSION = 1;

    /**
     * Flag: the body ends with a write id of {@value #WRITE_ID_LENGTH} bytes (PUT, DELETE and a replicated PUT or
     * DELETE only): the writer (u64, never 0: a client instance's random id), the write's sequence number (u64, &gt; 0,
     * the same on every retry of the write) and the writer's completed-below mark (u64: every write of this writer
     * numbered below it has had its answer, so it is never retried and a node may forget it). Nodes answer a retry of a
     * write they already applied with that write's outcome instead of applying it again.
     */
    public static final int FLAG_WRITE_ID = 0x1;
    /**
     * Flag, ATTACH only: the connection is one of a client's caller lanes (an extra connection for its synchronous
     * requests, besides its first). A node admits a lane only while a quarter of its connection limit stays free, so
     * lanes never lock another client's first connection out; a refused lane costs the client nothing but the lane.
     */
    public static final int FLAG_LANE = 0x2;
    public static final int WRITE_ID_LENGTH = 24;

    public static final int VERSION_OFFSET = 0;
    public static final int TYPE_OFFSET = 1;
    public static final int FLAGS_OFFSET = 2;
    public static final int BODY_LENGTH_OFFSET = 4;
    public static final int CORRELATION_ID_OFFSET = 8;

    protected static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    protected DirectBuffer buffer;
    protected int offset;
    protected int length;

    /**
     * @throws ProtocolException {@link ErrorCode#TRUNCATED} if fewer than {@link #HEADER_LENGTH} bytes are available.
     */
    public MessageHeaderFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        if (offset < 0 || length < HEADER_LENGTH || buffer.capacity() - offset < length)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED, "message header needs " + HEADER_LENGTH +
                " bytes, got " + length + " at " + offset + " (capacity " + buffer.capacity() + ")");
        }
        this.buffer = buffer;
        this.offset = offset;
        this.length = length;
        return this;
    }

    /**
     * Check version, type and that the body length equals the bytes wrapped after the header.
     *
     * @throws ProtocolException {@link ErrorCode#UNSUPPORTED_VERSION}, {@link ErrorCode#UNKNOWN_TYPE},
     *                           {@link ErrorCode#TRUNCATED} or {@link ErrorCode#BAD_LENGTH}.
     */
    public MessageHeaderFlyweight validate()
    {
        if (protocolVersion() != PROTOCOL_VERSION)
        {
            throw new ProtocolException(ErrorCode.UNSUPPORTED_VERSION,
                "protocol version " + protocolVersion() + ", expected " + PROTOCOL_VERSION);
        }
        final MessageType type = type();
        if (type == null || type == MessageType.MULTI_GET_REQUEST)
        {
            throw new ProtocolException(ErrorCode.UNKNOWN_TYPE, "message type " + typeCode());
        }
        final long bodyLength = bodyLengthUnsigned();
        final int available = length - HEADER_LENGTH;
        if (bodyLength > available)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "body length " + bodyLength + " but only " + available + " bytes follow the header");
        }
        if (bodyLength < available)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH,
                "body length " + bodyLength + " but " + available + " bytes follow the header");
        }
        return this;
    }

    /** Write version, type, zero flags, correlation id and an empty body; returns this for the body setters. */
    public MessageHeaderFlyweight header(final MessageType type, final long correlationId)
    {
        protocolVersion(PROTOCOL_VERSION);
        type(type);
        flags(0);
        bodyLength(0);
        correlationId(correlationId);
        return this;
    }

    public int protocolVersion()
    {
        return buffer.getByte(offset + VERSION_OFFSET) & 0xFF;
    }

    public MessageHeaderFlyweight protocolVersion(final int version)
    {
        mutable().putByte(offset + VERSION_OFFSET, (byte)version);
        return this;
    }

    public int typeCode()
    {
        return buffer.getByte(offset + TYPE_OFFSET) & 0xFF;
    }

    /** The type, or {@code null} when the code is unknown. */
    public MessageType type()
    {
        return MessageType.fromCode(typeCode());
    }

    public MessageHeaderFlyweight type(final MessageType type)
    {
        mutable().putByte(offset + TYPE_OFFSET, (byte)type.code());
        return this;
    }

    public int flags()
    {
        return buffer.getShort(offset + FLAGS_OFFSET, ORDER) & 0xFFFF;
    }

    public MessageHeaderFlyweight flags(final int flags)
    {
        mutable().putShort(offset + FLAGS_OFFSET, (short)flags, ORDER);
        return this;
    }

    /** The body length field as written; may be garbage before {@link #validate()}. */
    public int bodyLength()
    {
        return buffer.getInt(offset + BODY_LENGTH_OFFSET, ORDER);
    }

    public MessageHeaderFlyweight bodyLength(final int bodyLength)
    {
        ensureCapacity(bodyLength);
        mutable().putInt(offset + BODY_LENGTH_OFFSET, bodyLength, ORDER);
        return this;
    }

    public long correlationId()
    {
        return buffer.getLong(offset + CORRELATION_ID_OFFSET, ORDER);
    }

    public MessageHeaderFlyweight correlationId(final long correlationId)
    {
        mutable().putLong(offset + CORRELATION_ID_OFFSET, correlationId, ORDER);
        return this;
    }

    /** Whether the body ends with a write id ({@link #FLAG_WRITE_ID}). */
    public boolean hasWriteId()
    {
        return (flags() & FLAG_WRITE_ID) != 0;
    }

    /** The write id's writer (valid once validated and {@link #hasWriteId()}). */
    public long writerId()
    {
        return buffer.getLong(writeIdIndex(), ORDER);
    }

    /** The write id's sequence number. */
    public long writeSequence()
    {
        return buffer.getLong(writeIdIndex() + 8, ORDER);
    }

    /** The writer's completed-below mark: its writes numbered below it are answered and never retried. */
    public long writesCompletedBelow()
    {
        return buffer.getLong(writeIdIndex() + 16, ORDER);
    }

    /**
     * Append a write id after the body the type's setter wrote: sets {@link #FLAG_WRITE_ID} and grows the body.
     *
     * @throws ProtocolException {@link ErrorCode#MALFORMED} for a writer of 0, a sequence below 1 or a completed-below
     *                           mark past the sequence; {@link ErrorCode#TRUNCATED} when it does not fit.
     */
    public MessageHeaderFlyweight appendWriteId(final long writerId, final long sequence, final long completedBelow)
    {
        checkWriteId(writerId, sequence, completedBelow);
        if (hasWriteId() || trailerAfterWriteId() != 0)
        {
            throw new IllegalStateException("the message already carries a write id, or a trailer that follows it");
        }
        final int body = bodyLength();
        bodyLength(body + WRITE_ID_LENGTH);
        flags(flags() | FLAG_WRITE_ID);
        final MutableDirectBuffer b = mutable();
        final int at = offset + HEADER_LENGTH + body;
        b.putLong(at, writerId, ORDER);
        b.putLong(at + 8, sequence, ORDER);
        b.putLong(at + 16, completedBelow, ORDER);
        return this;
    }

    /** The bytes of the body the write id takes: {@value #WRITE_ID_LENGTH} when flagged, else 0. */
    protected final int writeIdLength()
    {
        return hasWriteId() ? WRITE_ID_LENGTH : 0;
    }

    /**
     * The write id checks of a type that may carry one, after the body length was checked to hold it: the values
     * (as {@link #appendWriteId}).
     */
    protected final void validateWriteId()
    {
        if (hasWriteId())
        {
            checkWriteId(writerId(), writeSequence(), writesCompletedBelow());
        }
    }

    private static void checkWriteId(final long writerId, final long sequence, final long completedBelow)
    {
        if (writerId == 0 || sequence < 1 || completedBelow < 0 || completedBelow > sequence)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "write id: writer " + writerId + ", sequence " +
                sequence + ", completed below " + completedBelow + " (writer != 0, 1 <= sequence, " +
                "0 <= completed below <= sequence)");
        }
    }

    private int writeIdIndex()
    {
        return offset + HEADER_LENGTH + bodyLength() - WRITE_ID_LENGTH - trailerAfterWriteId();
    }

    /** Bytes a type appends after the write id (0 here; a REPLICATE's replication sequence). */
    protected int trailerAfterWriteId()
    {
        return 0;
    }

    /** Header plus body: what to hand to the transport's send. */
    public int encodedLength()
    {
        return HEADER_LENGTH + bodyLength();
    }

    public DirectBuffer buffer()
    {
        return buffer;
    }

    public int offset()
    {
        return offset;
    }

    protected final long bodyLengthUnsigned()
    {
        return buffer.getInt(offset + BODY_LENGTH_OFFSET, ORDER) & 0xFFFF_FFFFL;
    }

    protected final int bodyOffset()
    {
        return offset + HEADER_LENGTH;
    }

    /**
     * The checks every fixed-prefix message starts its {@code validate()} with, after the header's own: the type is
     * {@code expected} and the body holds at least its {@code fixedBodyLength} bytes.
     *
     * @param what how errors name the message ("put request").
     * @return the body length.
     * @throws ProtocolException {@link ErrorCode#MALFORMED} for another type, {@link ErrorCode#TRUNCATED} for a body
     *                           shorter than the fixed part.
     */
    protected final long checkTypeAndFixedBody(final MessageType expected, final String what,
        final int fixedBodyLength)
    {
        if (type() != expected)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "not a " + what + ": " + type());
        }
        final long bodyLength = bodyLengthUnsigned();
        if (bodyLength < fixedBodyLength)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED, what + " body of " + bodyLength + " bytes");
        }
        return bodyLength;
    }

    /** Throw unless a body of {@code bodyLength} bytes fits the wrapped space. */
    protected final void ensureCapacity(final long bodyLength)
    {
        if (bodyLength < 0 || bodyLength > length - HEADER_LENGTH)
        {
            throw new ProtocolException(ErrorCode.TRUNCATED,
                "body of " + bodyLength + " bytes does not fit the " + (length - HEADER_LENGTH) + " bytes wrapped");
        }
    }

    protected final MutableDirectBuffer mutable()
    {
        if (!(buffer instanceof MutableDirectBuffer))
        {
            throw new IllegalStateException("message wrapped read-only; wrap a MutableDirectBuffer to encode");
        }
        return (MutableDirectBuffer)buffer;
    }
}

package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.ValueRecord;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * {@link MessageType#REPLICATE_REQUEST}: a primary hands one write of a slot range to a replica of it (an in-sync
 * backup or a catching-up learner), under the range epoch it holds the range at. The replica refuses an epoch older
 * than the one it knows for the range ({@link Status#STALE_EPOCH}), applies the write under its own durability
 * setting to its store and its pool, and answers RESPONSE OK once it is durable there.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                 Message header (16 B, type REPLICATE)        ...  0
 *  +-------------------------------+---------------+---------------+
 *  |  Range's first slot (u16)     |   Op (u8)     |  Answer (u8)  |  16
 *  +-------------------------------+---------------+---------------+
 *  |       Key length K (u16)      |  Range's last slot (u16)      |  20
 *  +-------------------------------+-------------------------------+
 *  |                     Range epoch (u64)                         |  24
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Value length V (u32)                      |  32
 *  +---------------------------------------------------------------+
 *  |                     Primary's node id (u32)                   |  36
 *  +---------------------------------------------------------------+
 *  |                     Key bytes (K)                            ...  40
 *  +---------------------------------------------------------------+
 *  |                     Value bytes (V, PUT and COPY only)       ...  40 + K
 *  |                     (PUT and COPY: the value's durable record, ValueRecord: data version, expiry, value)
 *  +---------------------------------------------------------------+
 *  |                     Write id (24 B, PUT and DELETE, only with FLAG_WRITE_ID: the client's) ...
 *  +---------------------------------------------------------------+
 *  |           Sender's incarnation (u64, != 0, only with FLAG_SEQUENCE)                     |
 *  |           Replication sequence (u64, >= 1, PUT and DELETE only with FLAG_SEQUENCE)      |
 *  +---------------------------------------------------------------+
 *  flags: 0x1 write id, 0x2 sequence, 0x4 fix-up (a reconcile's PUT or DELETE; only with 0x2)
 *  Answer: 0, or (a fix-up with a write id only) 1 + the status code (OK or NOT_FOUND) the sender answered that write
 *  id with: the replica records it for the write id instead of its own outcome of the fix-up
 *  body length = 24 + K + V (+ 24) (+ 16); Op: 1 PUT, 2 DELETE, 3 COPY (an entry of the range's checkpoint during
 *  catch-up: applied only if no PUT/DELETE of the key arrived since the catch-up began, so the tail always wins),
 *  4 DROP (K = V = 0: the catch-up begins; the replica drops what it holds of the range, and remembers the keys the
 *  tail writes), 5 RECONCILE (K = 0, V = 20: a new primary asks a backup which writes of the previous primary it
 *  holds past the new primary's own; the value is the RECONCILE query below), 6 BATCH (K = 0: a client's atomic
 *  multi-key write; the value is the entry count (u32) then the entries of {@link BatchWriteRequestFlyweight}, each
 *  PUT's value its record; applied in one write batch and acknowledged once)
 *
 *  RECONCILE value (20 B):
 *  +---------------------------------------------------------------+
 *  |                 Previous primary's node id (u32)              |  0
 *  +---------------------------------------------------------------+
 *  |     Previous primary's incarnation (u64; 0: none known)       |  4
 *  +---------------------------------------------------------------+
 *  |     Last sequence the asker applied from it (u64, >= 0)       |  12
 *  +---------------------------------------------------------------+
 * </pre>
 * The replication sequence numbers the REPLICATEs of client writes one sender incarnation (a node's run, a random id
 * taken at start) sends: it rises by one per message, so each range's messages from it rise too.
 */
public final class ReplicateRequestFlyweight extends MessageHeaderFlyweight
{
    /** Longest value field: a PUT's or COPY's is the value's record ({@link ValueRecord}), header included. */
    public static final int MAX_VALUE_LENGTH = ProtocolLimits.MAX_FORMAT_VALUE_LENGTH + ValueRecord.HEADER_LENGTH;
    public static final int OP_PUT = 1;
    public static final int OP_DELETE = 2;
    public static final int OP_COPY = 3;
    public static final int OP_DROP = 4;
    public static final int OP_RECONCILE = 5;
    /**
     * A client's atomic multi-key write ({@link BatchWriteRequestFlyweight}): K = 0, the value is the entry count
     * (u32) and the entries, each PUT's value its durable record. Applied in one write batch, acknowledged once;
     * carries a write id and a sequence as a PUT does, never a fix-up (a reconcile fixes up key by key).
     */
    public static final int OP_BATCH = 6;

    /** Flag: the body ends with the sender's incarnation and replication sequence (after the write id, if any). */
    public static final int FLAG_SEQUENCE = 0x2;
    public static final int SEQUENCE_LENGTH = 16;
    /**
     * Flag (PUT and DELETE with a sequence only): a new primary's reconcile fix-up. The value (or its absence) is the
     * new primary's current one for the key; the replica forgets the write ids of the writes of the key it applied
     * from the previous primary past the sequence of the RECONCILE query it answered, because this message undoes them.
     */
    public static final int FLAG_FIX_UP = 0x4;
    /** Value length of a RECONCILE query: previous primary (u32), its incarnation (u64), last sequence (u64). */
    public static final int RECONCILE_VALUE_LENGTH = 20;
    private static final UnsafeBuffer NONE = new UnsafeBuffer(new byte[0]);

    public static final int FIRST_SLOT_OFFSET = HEADER_LENGTH;
    public static final int OP_OFFSET = HEADER_LENGTH + 2;
    public static final int ANSWER_OFFSET = HEADER_LENGTH + 3;
    public static final int KEY_LENGTH_OFFSET = HEADER_LENGTH + 4;
    public static final int LAST_SLOT_OFFSET = HEADER_LENGTH + 6;
    public static final int EPOCH_OFFSET = HEADER_LENGTH + 8;
    public static final int VALUE_LENGTH_OFFSET = HEADER_LENGTH + 16;
    public static final int PRIMARY_OFFSET = HEADER_LENGTH + 20;
    public static final int KEY_OFFSET = HEADER_LENGTH + 24;
    public static final int FIXED_BODY_LENGTH = 24;

    @Override
    public ReplicateRequestFlyweight header(final MessageType type, final long correlationId)
    {
        super.header(type, correlationId);
        return this;
    }

    @Override
    public ReplicateRequestFlyweight wrap(final DirectBuffer buffer, final int offset, final int length)
    {
        super.wrap(buffer, offset, length);
        return this;
    }

    /**
     * Header checks plus the op, and the key and value lengths against the body and the format limits.
     *
     * @throws ProtocolException {@link ErrorCode#MALFORMED}, {@link ErrorCode#TRUNCATED}, {@link ErrorCode#BAD_LENGTH},
     *                           {@link ErrorCode#KEY_TOO_LARGE}, {@link ErrorCode#VALUE_TOO_LARGE} or a header error.
     */
    @Override
    public ReplicateRequestFlyweight validate()
    {
        super.validate();
        final long bodyLength = checkTypeAndFixedBody(MessageType.REPLICATE_REQUEST, "replicate request", FIXED_BODY_LENGTH);
        final int op = op();
        if (op < OP_PUT || op > OP_BATCH)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "replicate op " + op);
        }
        final int keyLength = keyLength();
        final long valueLength = buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER) & 0xFFFF_FFFFL;
        if ((keyLength == 0) != (op == OP_DROP || op == OP_RECONCILE || op == OP_BATCH) ||
            keyLength > ProtocolLimits.MAX_KEY_LENGTH)
        {
            throw new ProtocolException(ErrorCode.KEY_TOO_LARGE, "key length " + keyLength);
        }
        if (valueLength > (op == OP_BATCH ? BatchWriteRequestFlyweight.MAX_ENTRIES_LENGTH + 4 : MAX_VALUE_LENGTH))
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "value length " + valueLength);
        }
        if (hasWriteId() && op != OP_PUT && op != OP_DELETE && op != OP_BATCH)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "a write id on replicate op " + op);
        }
        if (hasSequence() && op != OP_PUT && op != OP_DELETE && op != OP_BATCH)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "a replication sequence on replicate op " + op);
        }
        if (isFixUp() && (!hasSequence() || op == OP_BATCH))
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "a fix-up without a replication sequence (op " + op + ")");
        }
        if (FIXED_BODY_LENGTH + keyLength + valueLength + writeIdLength() + trailerAfterWriteId() != bodyLength ||
            ((op == OP_DELETE || op == OP_DROP) && valueLength != 0) || lastSlot() < firstSlot() ||
            op == OP_RECONCILE && valueLength != RECONCILE_VALUE_LENGTH)
        {
            throw new ProtocolException(ErrorCode.BAD_LENGTH, "key length " + keyLength + " + value length " +
                valueLength + " disagree with body length " + bodyLength + " (op " + op + ")");
        }
        validateWriteId();
        final int answer = buffer.getByte(offset + ANSWER_OFFSET) & 0xFF;
        if (answer != 0 && (!isFixUp() || !hasWriteId() || !answerable(Status.fromCode(answer - 1))))
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "answer byte " + answer + " on a message that is no " +
                "fix-up with a write id, or no OK/NOT_FOUND answer");
        }
        if (hasSequence())
        {
            checkSequence(senderIncarnation(), replicationSequence());
        }
        if (op == OP_BATCH)
        {
            if (valueLength < 4)
            {
                throw new ProtocolException(ErrorCode.BAD_LENGTH, "a batch without its entry count");
            }
            BatchWriteRequestFlyweight.checkEntries(buffer, batchEntriesIndex(), (int)valueLength - 4, batchCount(),
                BatchWriteRequestFlyweight.RECORD_HEADER_LENGTH);
        }
        if (op == OP_RECONCILE && (reconciledPrimary() < 0 || reconciledSequence() < 0))
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "reconcile query: previous primary " +
                reconciledPrimary() + ", sequence " + reconciledSequence() + " (both >= 0)");
        }
        return this;
    }

    /** Whether the body ends with the sender's incarnation and replication sequence ({@link #FLAG_SEQUENCE}). */
    public boolean hasSequence()
    {
        return (flags() & FLAG_SEQUENCE) != 0;
    }

    /** Whether this PUT or DELETE is a new primary's reconcile fix-up ({@link #FLAG_FIX_UP}). */
    public boolean isFixUp()
    {
        return (flags() & FLAG_FIX_UP) != 0;
    }

    /** Mark this PUT or DELETE, which carries a replication sequence, as a reconcile fix-up ({@link #FLAG_FIX_UP}). */
    public ReplicateRequestFlyweight markFixUp()
    {
        if (!hasSequence())
        {
            throw new IllegalStateException("a fix-up carries a replication sequence: append it first");
        }
        flags(flags() | FLAG_FIX_UP);
        return this;
    }

    /**
     * The answer the sender recorded for the write id this fix-up carries (what it answered, or would answer, that
     * write's client), or null: the replica then records its own outcome of the fix-up.
     */
    public Status recordedAnswer()
    {
        final int answer = buffer.getByte(offset + ANSWER_OFFSET) & 0xFF;
        return answer == 0 ? null : Status.fromCode(answer - 1);
    }

    /**
     * Carry {@code answer} (OK or NOT_FOUND) as the answer recorded for this fix-up's write id (after {@link
     * #appendWriteId} and {@link #markFixUp}); null carries none.
     */
    public ReplicateRequestFlyweight recordedAnswer(final Status answer)
    {
        if (answer != null && (!isFixUp() || !hasWriteId() || !answerable(answer)))
        {
            throw new IllegalStateException("only a fix-up with a write id carries an answer, OK or NOT_FOUND: " +
                answer);
        }
        mutable().putByte(offset + ANSWER_OFFSET, (byte)(answer == null ? 0 : answer.code() + 1));
        return this;
    }

    private static boolean answerable(final Status answer)
    {
        return answer == Status.OK || answer == Status.NOT_FOUND;
    }

    /** The sending node's incarnation (valid once validated and {@link #hasSequence()}). */
    public long senderIncarnation()
    {
        return buffer.getLong(sequenceIndex(), ORDER);
    }

    /** The message's replication sequence in its sender's incarnation. */
    public long replicationSequence()
    {
        return buffer.getLong(sequenceIndex() + 8, ORDER);
    }

    /**
     * Append the sender's incarnation and replication sequence after the body (and the write id, appended first):
     * sets {@link #FLAG_SEQUENCE} and grows the body.
     *
     * @throws ProtocolException {@link ErrorCode#MALFORMED} for an incarnation of 0 or a sequence below 1;
     *                           {@link ErrorCode#TRUNCATED} when it does not fit.
     */
    public ReplicateRequestFlyweight appendSequence(final long incarnation, final long sequence)
    {
        checkSequence(incarnation, sequence);
        if (hasSequence())
        {
            throw new IllegalStateException("the message already carries a replication sequence");
        }
        final int body = bodyLength();
        bodyLength(body + SEQUENCE_LENGTH);
        flags(flags() | FLAG_SEQUENCE);
        final MutableDirectBuffer b = mutable();
        b.putLong(offset + HEADER_LENGTH + body, incarnation, ORDER);
        b.putLong(offset + HEADER_LENGTH + body + 8, sequence, ORDER);
        return this;
    }

    /**
     * Set every field of a RECONCILE query after the header: a new primary ({@code primary}) asks about the writes
     * of the range's previous primary it holds past {@code lastSequence}.
     */
    public ReplicateRequestFlyweight writeReconcile(final int primary, final int firstSlot, final int lastSlot,
        final long rangeEpoch, final int previousPrimary, final long previousIncarnation, final long lastSequence)
    {
        if (previousPrimary < 0 || lastSequence < 0)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "reconcile query: previous primary " + previousPrimary +
                ", sequence " + lastSequence + " (both >= 0)");
        }
        final MutableDirectBuffer b = mutable();
        final int at = offset + KEY_OFFSET;
        write(primary, firstSlot, lastSlot, rangeEpoch, OP_RECONCILE, NONE, 0, 0, NONE, 0, 0);
        bodyLength(FIXED_BODY_LENGTH + RECONCILE_VALUE_LENGTH);
        b.putInt(offset + VALUE_LENGTH_OFFSET, RECONCILE_VALUE_LENGTH, ORDER);
        b.putInt(at, previousPrimary, ORDER);
        b.putLong(at + 4, previousIncarnation, ORDER);
        b.putLong(at + 12, lastSequence, ORDER);
        return this;
    }

    /** RECONCILE: the range's previous primary. */
    public int reconciledPrimary()
    {
        return buffer.getInt(offset + KEY_OFFSET, ORDER);
    }

    /** RECONCILE: the previous primary's incarnation the asker knows (0: none). */
    public long reconciledIncarnation()
    {
        return buffer.getLong(offset + KEY_OFFSET + 4, ORDER);
    }

    /** BATCH: how many entries (the value's first 4 bytes). */
    public int batchCount()
    {
        return buffer.getInt(offset + KEY_OFFSET, ORDER);
    }

    /** BATCH: where the entries start (after the count). */
    public int batchEntriesIndex()
    {
        return offset + KEY_OFFSET + 4;
    }

    /** BATCH: the entries' length. */
    public int batchEntriesLength()
    {
        return valueLength() - 4;
    }

    /**
     * Set every field of a BATCH after the header: {@code count} entries of {@code entriesLength} bytes (each PUT's
     * value its record), copied from {@code entries}.
     */
    public ReplicateRequestFlyweight writeBatch(final int primary, final int firstSlot, final int lastSlot,
        final long rangeEpoch, final int count, final DirectBuffer entries, final int entriesOffset,
        final int entriesLength)
    {
        write(primary, firstSlot, lastSlot, rangeEpoch, OP_BATCH, NONE, 0, 0, NONE, 0, 0);
        final MutableDirectBuffer b = mutable();
        bodyLength(FIXED_BODY_LENGTH + 4 + entriesLength);
        b.putInt(offset + VALUE_LENGTH_OFFSET, 4 + entriesLength, ORDER);
        b.putInt(offset + KEY_OFFSET, count, ORDER);
        b.putBytes(offset + KEY_OFFSET + 4, entries, entriesOffset, entriesLength);
        return this;
    }

    /** RECONCILE: the last sequence the asker applied from that incarnation. */
    public long reconciledSequence()
    {
        return buffer.getLong(offset + KEY_OFFSET + 12, ORDER);
    }

    @Override
    protected int trailerAfterWriteId()
    {
        return hasSequence() ? SEQUENCE_LENGTH : 0;
    }

    private int sequenceIndex()
    {
        return offset + HEADER_LENGTH + bodyLength() - SEQUENCE_LENGTH;
    }

    private static void checkSequence(final long incarnation, final long sequence)
    {
        if (incarnation == 0 || sequence < 1)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "replication sequence: incarnation " + incarnation +
                ", sequence " + sequence + " (incarnation != 0, sequence >= 1)");
        }
    }

    public int firstSlot()
    {
        return buffer.getShort(offset + FIRST_SLOT_OFFSET, ORDER) & 0xFFFF;
    }

    public int lastSlot()
    {
        return buffer.getShort(offset + LAST_SLOT_OFFSET, ORDER) & 0xFFFF;
    }

    /** The node id of the primary that sent it. */
    public int primary()
    {
        return buffer.getInt(offset + PRIMARY_OFFSET, ORDER);
    }

    public int op()
    {
        return buffer.getByte(offset + OP_OFFSET) & 0xFF;
    }

    public long rangeEpoch()
    {
        return buffer.getLong(offset + EPOCH_OFFSET, ORDER);
    }

    public int keyLength()
    {
        return buffer.getShort(offset + KEY_LENGTH_OFFSET, ORDER) & 0xFFFF;
    }

    public int valueLength()
    {
        return buffer.getInt(offset + VALUE_LENGTH_OFFSET, ORDER);
    }

    public int keyIndex()
    {
        return offset + KEY_OFFSET;
    }

    public int valueIndex()
    {
        return offset + KEY_OFFSET + keyLength();
    }

    /**
     * Set every field after the header: the range, the op, key and value (none for DELETE), and the body length.
     */
    public ReplicateRequestFlyweight write(final int primary, final int firstSlot, final int lastSlot,
        final long rangeEpoch, final int op,
        final DirectBuffer key, final int keyOffset, final int keyLength,
        final DirectBuffer value, final int valueOffset, final int valueLength)
    {
        KeyRequestFlyweight.checkKeyLength(keyLength);
        if (valueLength < 0 || valueLength > MAX_VALUE_LENGTH)
        {
            throw new ProtocolException(ErrorCode.VALUE_TOO_LARGE, "value length " + valueLength);
        }
        bodyLength(FIXED_BODY_LENGTH + keyLength + valueLength);
        final MutableDirectBuffer b = mutable();
        b.putShort(offset + FIRST_SLOT_OFFSET, (short)firstSlot, ORDER);
        b.putByte(offset + OP_OFFSET, (byte)op);
        b.putByte(offset + ANSWER_OFFSET, (byte)0);
        b.putShort(offset + KEY_LENGTH_OFFSET, (short)keyLength, ORDER);
        b.putShort(offset + LAST_SLOT_OFFSET, (short)lastSlot, ORDER);
        b.putLong(offset + EPOCH_OFFSET, rangeEpoch, ORDER);
        b.putInt(offset + VALUE_LENGTH_OFFSET, valueLength, ORDER);
        b.putInt(offset + PRIMARY_OFFSET, primary, ORDER);
        b.putBytes(offset + KEY_OFFSET, key, keyOffset, keyLength);
        if (valueLength > 0)
        {
            b.putBytes(offset + KEY_OFFSET + keyLength, value, valueOffset, valueLength);
        }
        return this;
    }
}

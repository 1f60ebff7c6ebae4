package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AtomicBuffer;

import java.nio.ByteOrder;

/**
 * The slot ownership table: one word per cluster hash slot, right after the pool header, saying whether this node
 * serves the slot's reads from its pool and at which range epoch. A one-sided reader reads the key's word in the same
 * doorbell batch as the buckets (or the cached extent) and trusts what it read only when the word says
 * {@link #STATE_LIVE} or {@link #STATE_MIGRATING} for that slot at an epoch no older than its own map's.
 *
 * <pre>
 *   pool offset 4096 + 8 x slot, one u64 per slot, little-endian, 16384 words (128 KiB):
 *   6                   5                   4                   3                   2                   1
 *   3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0 9 8 7 6 5 4 3 2 1 0
 *  +-----------------------------------------------------------------------------------------+-----------------+---+
 *  |                              Range epoch (48 bits)                                      |  Slot (14 bits)  |St |
 *  +-----------------------------------------------------------------------------------------+-----------------+---+
 *   St (bits 0-1): 0 NOT_OWNER (the zeroed table: nothing is served before the node writes), 1 LIVE, 2 MIGRATING,
 *   3 FENCED. Slot (bits 2-15): the word's own slot, so a read at the wrong offset never passes.
 * </pre>
 *
 * The node is the only writer; each word is one 8-byte release store, and an 8-byte aligned word is read whole by an
 * RDMA read and by the TCP emulation alike.
 */
public final class SlotOwnershipTable
{
    /** Offset of the table from the pool start: right after the header. */
    public static final int OFFSET = PoolHeaderFlyweight.HEADER_LENGTH;
    public static final int WORD_LENGTH = 8;
    public static final int WORD_COUNT = ProtocolLimits.HASH_SLOT_COUNT;
    /** Bytes of the table. */
    public static final int LENGTH = WORD_COUNT * WORD_LENGTH;

    /** The node does not own the slot (never written). */
    public static final int STATE_NOT_OWNER = 0;
    /** The node is the slot's primary and serves it. */
    public static final int STATE_LIVE = 1;
    /** The node is the primary of a range being moved: it still serves it until it fences. */
    public static final int STATE_MIGRATING = 2;
    /** The node gave the slot up (cut-over, demotion, lost lease): readers must go elsewhere. */
    public static final int STATE_FENCED = 3;

    /** Largest range epoch a word holds. */
    public static final long MAX_EPOCH = (1L << 48) - 1;

    private static final int STATE_MASK = 0x3;
    private static final int HASH_SLOT_SHIFT = 2;
    private static final int HASH_SLOT_MASK = 0x3FFF;
    private static final int EPOCH_SHIFT = 16;
    private static final boolean NATIVE_LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;

    private SlotOwnershipTable()
    {
    }

    /** The word at {@code index} of {@code buffer} (where the pool offset {@link #poolOffsetOf} lands), acquire. */
    public static long wordAt(final AtomicBuffer buffer, final int index)
    {
        final long raw = buffer.getLongVolatile(index);
        return NATIVE_LITTLE_ENDIAN ? raw : Long.reverseBytes(raw);
    }

    /** Store {@code word} at {@code index} of {@code buffer} with one release store (the node, single writer). */
    public static void publishAt(final AtomicBuffer buffer, final int index, final long word)
    {
        buffer.putLongRelease(index, NATIVE_LITTLE_ENDIAN ? word : Long.reverseBytes(word));
    }

    /** Offset from the pool start of {@code hashSlot}'s word: what a one-sided reader reads. */
    public static long poolOffsetOf(final int hashSlot)
    {
        checkHashSlot(hashSlot);
        return OFFSET + (long)hashSlot * WORD_LENGTH;
    }

    /** The word for {@code hashSlot} in {@code state} at {@code epoch}. */
    public static long encode(final int hashSlot, final int state, final long epoch)
    {
        checkHashSlot(hashSlot);
        if (state < STATE_NOT_OWNER || state > STATE_FENCED)
        {
            throw new IllegalArgumentException("ownership state must be 0..3: " + state);
        }
        if (epoch < 0 || epoch > MAX_EPOCH)
        {
            throw new IllegalArgumentException("range epoch must be 0.." + MAX_EPOCH + ": " + epoch);
        }
        return epoch << EPOCH_SHIFT | (long)hashSlot << HASH_SLOT_SHIFT | state;
    }

    public static int state(final long word)
    {
        return (int)word & STATE_MASK;
    }

    public static int hashSlot(final long word)
    {
        return (int)(word >>> HASH_SLOT_SHIFT) & HASH_SLOT_MASK;
    }

    public static long epoch(final long word)
    {
        return word >>> EPOCH_SHIFT;
    }

    /**
     * Whether a reader whose map has {@code hashSlot} at {@code mapEpoch} may trust a one-sided read of the node that
     * published {@code word}: the word is {@code hashSlot}'s, LIVE or MIGRATING, at an epoch no older than the map's.
     * A few register operations; never throws.
     */
    public static boolean serves(final long word, final int hashSlot, final long mapEpoch)
    {
        final int state = (int)word & STATE_MASK;
        return (state == STATE_LIVE || state == STATE_MIGRATING) && ((int)(word >>> HASH_SLOT_SHIFT) & HASH_SLOT_MASK) == hashSlot &&
            word >>> EPOCH_SHIFT >= mapEpoch;
    }

    /** The word as text, for logs and test messages. */
    public static String describe(final long word)
    {
        final String state = switch (state(word))
        {
            case STATE_LIVE -> "LIVE";
            case STATE_MIGRATING -> "MIGRATING";
            case STATE_FENCED -> "FENCED";
            default -> "NOT_OWNER";
        };
        return state + "(slot " + hashSlot(word) + ", epoch " + epoch(word) + ")";
    }

    /** Read {@code hashSlot}'s word from a copy of it at {@code index} of {@code buffer} (a reader's read buffer). */
    public static long readWord(final DirectBuffer buffer, final int index)
    {
        return buffer.getLong(index, ByteOrder.LITTLE_ENDIAN);
    }

    private static void checkHashSlot(final int hashSlot)
    {
        if (hashSlot < 0 || hashSlot >= WORD_COUNT)
        {
            throw new IllegalArgumentException("slot must be 0.." + (WORD_COUNT - 1) + ": " + hashSlot);
        }
    }
}

package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.KeyHash;
import org.agrona.MutableDirectBuffer;

/**
 * The RocksDB key of a client key: its cluster slot in front, so the keys of a slot range are one contiguous interval
 * of the store. A range is then copied, checkpointed or dropped on its own (an iterator between two bounds, one
 * {@code deleteRange}), whatever the ranges are: resharding moves boundaries without rewriting any key.
 *
 * <pre>
 *   0                   1                   2
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 ...
 *  +-------------------------------+---------------------------
 *  |  Slot (u16, big-endian)       |  Client key bytes (K)   ...
 *  +-------------------------------+---------------------------
 *  big-endian, so byte order sorts by slot first; slot = KeyHash.hashSlot(key): Redis Cluster's
 *  CRC16 of the key's hash tag, 0..16383; the store records the mapping it was written with (SlotHashMark)
 * </pre>
 */
public final class StoreKeys
{
    /** Bytes in front of the client key. */
    public static final int PREFIX_LENGTH = 2;

    private StoreKeys()
    {
    }

    /**
     * Write the store key of {@code key} at {@code destination[destinationIndex]}: its slot is the key's hash slot,
     * computed when the key was decoded.
     *
     * @return the store key's length ({@link #PREFIX_LENGTH} + the key's length).
     */
    public static int encode(final HashedKey key, final MutableDirectBuffer destination, final int destinationIndex)
    {
        final int hashSlot = key.hashSlot();
        destination.putByte(destinationIndex, (byte)(hashSlot >>> 8));
        destination.putByte(destinationIndex + 1, (byte)hashSlot);
        destination.putBytes(destinationIndex + PREFIX_LENGTH, key.buffer(), key.offset(), key.length());
        return PREFIX_LENGTH + key.length();
    }

    /** The store key of {@code key}, under its hash slot. Allocates. */
    public static byte[] encode(final HashedKey key)
    {
        final byte[] storeKey = prefixed(key.hashSlot(), key.length());
        key.buffer().getBytes(key.offset(), storeKey, PREFIX_LENGTH, key.length());
        return storeKey;
    }

    /** The store key of {@code key}. Allocates. */
    public static byte[] encode(final byte[] key)
    {
        final byte[] storeKey = prefixed(KeyHash.hashSlot(key), key.length);
        System.arraycopy(key, 0, storeKey, PREFIX_LENGTH, key.length);
        return storeKey;
    }

    /** A store key of a client key of {@code keyLength} bytes, its hash slot in front, the key's bytes still to copy. */
    private static byte[] prefixed(final int hashSlot, final int keyLength)
    {
        final byte[] storeKey = new byte[PREFIX_LENGTH + keyLength];
        storeKey[0] = (byte)(hashSlot >>> 8);
        storeKey[1] = (byte)hashSlot;
        return storeKey;
    }

    /** The store key of client key {@code key} under hash slot {@code hashSlot} (a bound of a range read). Allocates. */
    public static byte[] encode(final int hashSlot, final byte[] key)
    {
        final byte[] storeKey = prefixed(hashSlot, key.length);
        System.arraycopy(key, 0, storeKey, PREFIX_LENGTH, key.length);
        return storeKey;
    }

    /** Position {@code it} on the first store key after {@code storeKey} (paged reads resume there). */
    static void seekAfter(final org.rocksdb.RocksIterator it, final byte[] storeKey)
    {
        it.seek(storeKey);
        if (it.isValid() && java.util.Arrays.equals(it.key(), storeKey))
        {
            it.next();
        }
    }

    /** The client key inside a store key. Allocates. */
    public static byte[] clientKey(final byte[] storeKey)
    {
        final byte[] key = new byte[storeKey.length - PREFIX_LENGTH];
        System.arraycopy(storeKey, PREFIX_LENGTH, key, 0, key.length);
        return key;
    }

    /** The slot a store key starts with. */
    public static int hashSlotOfStoreKey(final byte[] storeKey)
    {
        return ((storeKey[0] & 0xFF) << 8) | (storeKey[1] & 0xFF);
    }

    /** The smallest store key of {@code hashSlot} (inclusive lower bound of its interval). */
    public static byte[] lowerBound(final int hashSlot)
    {
        return new byte[] {(byte)(hashSlot >>> 8), (byte)hashSlot};
    }
}

package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteOrder;

/**
 * The key hashes clients and servers agree on: XXH64 (seed 0) of the key bytes for the pool's index, and Redis
 * Cluster's slot for routing.
 *
 * <pre>
 *   h = XXH64(key, seed 0)
 *   fingerprint    = bits 63..48 of h, with 0 mapped to 1 (0 marks an empty slot)
 *   primary bucket = h &amp; (bucketCount - 1)                         (low bits)
 *   m = splitmix-finaliser(h ^ 0x9E3779B97F4A7C15)                   (independent of h's low bits)
 *   secondary      = m &amp; (bucketCount - 1), flipped in its lowest bit if it equals the primary
 *   cluster slot   = CRC16-XMODEM(hash tag of key) mod 16384         (0..16383, routes the key to a node)
 *   hash tag       = the bytes between the first '{' and the first '}' after it, when there are any; else the key
 * </pre>
 *
 * The cluster slot is Redis Cluster's ({@code HASH_SLOT} in Redis's cluster.c), so a Redis Cluster client routes a key
 * to the node that owns it, and keys with one hash tag share a slot. It is independent of the index hash, so the keys
 * one node owns still spread over all of its buckets. All methods are static, allocation-free and thread-safe.
 */
public final class KeyHash
{
    private static final long P1 = 0x9E3779B185EBCA87L;
    private static final long P2 = 0xC2B2AE3D27D4EB4FL;
    private static final long P3 = 0x165667B19E3779F9L;
    private static final long P4 = 0x85EBCA77C2B2AE63L;
    private static final long P5 = 0x27D4EB2F165667C5L;

    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private KeyHash()
    {
    }

    /** XXH64 with seed 0 of {@code length} bytes at {@code offset}. */
    public static long hash(final DirectBuffer buffer, final int offset, final int length)
    {
        buffer.boundsCheck(offset, length);
        final int end = offset + length;
        int i = offset;
        long h;
        if (length >= 32)
        {
            long v1 = P1 + P2;
            long v2 = P2;
            long v3 = 0;
            long v4 = -P1;
            final int limit = end - 32;
            do
            {
                v1 = round(v1, buffer.getLong(i, ORDER));
                v2 = round(v2, buffer.getLong(i + 8, ORDER));
                v3 = round(v3, buffer.getLong(i + 16, ORDER));
                v4 = round(v4, buffer.getLong(i + 24, ORDER));
                i += 32;
            }
            while (i <= limit);
            h = converge(v1, v2, v3, v4);
        }
        else
        {
            h = P5;
        }
        h += length;
        while (i + 8 <= end)
        {
            h = Long.rotateLeft(h ^ round(0, buffer.getLong(i, ORDER)), 27) * P1 + P4;
            i += 8;
        }
        if (i + 4 <= end)
        {
            h = Long.rotateLeft(h ^ ((buffer.getInt(i, ORDER) & 0xFFFF_FFFFL) * P1), 23) * P2 + P3;
            i += 4;
        }
        while (i < end)
        {
            h = Long.rotateLeft(h ^ ((buffer.getByte(i) & 0xFFL) * P5), 11) * P1;
            i++;
        }
        return avalanche(h);
    }

    /**
     * XXH64 with seed 0 of {@code length} bytes of {@code bytes} at {@code offset}: {@link #hash(DirectBuffer, int,
     * int)} over a view of the array (one small allocation unless the JIT removes it; hot paths hash a buffer).
     */
    public static long hash(final byte[] bytes, final int offset, final int length)
    {
        if (offset < 0 || length < 0 || offset > bytes.length - length)
        {
            throw new IndexOutOfBoundsException("offset=" + offset + " length=" + length + " array=" + bytes.length);
        }
        return hash(new UnsafeBuffer(bytes), offset, length);
    }

    public static long hash(final byte[] bytes)
    {
        return hash(bytes, 0, bytes.length);
    }

    /** The 16-bit slot fingerprint, never 0. */
    public static int fingerprint(final long hash)
    {
        final int fp = (int)(hash >>> 48);
        return fp == 0 ? 1 : fp;
    }

    /** The first candidate bucket; {@code bucketCount} must be a power of two. */
    public static long primaryBucket(final long hash, final long bucketCount)
    {
        return hash & (bucketCount - 1);
    }

    /** The second candidate bucket; differs from the primary whenever there are at least two buckets. */
    public static long secondaryBucket(final long hash, final long bucketCount)
    {
        final long mask = bucketCount - 1;
        final long secondary = mix(hash) & mask;
        return secondary == (hash & mask) ? secondary ^ (1 & mask) : secondary;
    }

    /**
     * The cluster slot of the key's {@code length} bytes at {@code offset}, {@code 0..}{@link
     * ProtocolLimits#HASH_SLOT_COUNT}{@code - 1}: Redis Cluster's CRC16 (XMODEM) of its hash tag, mod 16384.
     */
    public static int hashSlot(final DirectBuffer key, final int offset, final int length)
    {
        key.boundsCheck(offset, length);
        final int end = offset + length;
        int from = offset;
        int to = end;
        for (int open = offset; open < end; open++)
        {
            if (key.getByte(open) == '{')
            {
                for (int close = open + 1; close < end; close++)
                {
                    if (key.getByte(close) == '}')
                    {
                        if (close > open + 1)
                        {
                            from = open + 1;
                            to = close;
                        }
                        break;
                    }
                }
                break;
            }
        }
        int crc = 0;
        for (int i = from; i < to; i++)
        {
            crc = ((crc << 8) ^ CRC16_TABLE[((crc >>> 8) ^ key.getByte(i)) & 0xFF]) & 0xFFFF;
        }
        return crc & (ProtocolLimits.HASH_SLOT_COUNT - 1);
    }

    /** {@link #hashSlot(DirectBuffer, int, int)} of a whole array (wrapped: one small allocation). */
    public static int hashSlot(final byte[] key)
    {
        return hashSlot(new UnsafeBuffer(key), 0, key.length);
    }

    /** CRC16-CCITT (XMODEM): polynomial 0x1021, initial value 0, no reflection, as Redis's crc16.c. */
    private static final int[] CRC16_TABLE = crc16Table();

    private static int[] crc16Table()
    {
        final int[] table = new int[256];
        for (int b = 0; b < 256; b++)
        {
            int crc = b << 8;
            for (int bit = 0; bit < 8; bit++)
            {
                crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
            }
            table[b] = crc & 0xFFFF;
        }
        return table;
    }

    private static long round(final long acc, final long input)
    {
        return Long.rotateLeft(acc + input * P2, 31) * P1;
    }

    private static long converge(final long v1, final long v2, final long v3, final long v4)
    {
        long h = Long.rotateLeft(v1, 1) + Long.rotateLeft(v2, 7) + Long.rotateLeft(v3, 12) + Long.rotateLeft(v4, 18);
        h = (h ^ round(0, v1)) * P1 + P4;
        h = (h ^ round(0, v2)) * P1 + P4;
        h = (h ^ round(0, v3)) * P1 + P4;
        h = (h ^ round(0, v4)) * P1 + P4;
        return h;
    }

    private static long avalanche(final long hash)
    {
        long h = hash;
        h ^= h >>> 33;
        h *= P2;
        h ^= h >>> 29;
        h *= P3;
        h ^= h >>> 32;
        return h;
    }

    private static long mix(final long hash)
    {
        long z = hash ^ 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

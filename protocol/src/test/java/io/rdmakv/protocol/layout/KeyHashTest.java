package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ProtocolLimits;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KeyHashTest
{
    /** Lengths and XXH64(seed 0) of bytes (i * 31 + 7), computed with the reference C library (libxxhash 0.8.3). */
    private static final int[] LENGTHS = {1, 3, 4, 7, 8, 9, 15, 16, 31, 32, 33, 63, 64, 65, 100, 1024};
    private static final long[] EXPECTED = {
        0xA96C7F0CE858BBB7L, 0x56E6957632A487F9L, 0xC60D15B1E3FF8F04L, 0xAFBEFC3D6C6F9A8EL,
        0x3DA5C7AA269683E0L, 0x4B17A9BA9E215C09L, 0xAE2A37EB9357CAA7L, 0xA19AD429B02BC413L,
        0x4A74F3A1A39AD4A1L, 0x8D57D6A4671CC43DL, 0x62C9FD21ED857664L, 0x5C320A0D2707057FL,
        0x7BBABBC45729D17EL, 0xF3980C34BAE65DC1L, 0xEFA0AD2D3E70C151L, 0x149AA44972CDAE00L,
    };

    @Test
    void shouldMatchPublishedXxh64Vectors()
    {
        assertEquals(0xEF46DB3751D8E999L, KeyHash.hash(new byte[0]));
        assertEquals(0xD24EC4F1A98C6E5BL, KeyHash.hash(ascii("a")));
        assertEquals(0x44BC2CF5AD770999L, KeyHash.hash(ascii("abc")));
        assertEquals(0xFBCEA83C8A378BF1L, KeyHash.hash(ascii("Nobody inspects the spammish repetition")));
    }

    @Test
    void shouldMatchReferenceLibraryOnEveryCodePathForArraysAndBuffers()
    {
        for (int i = 0; i < LENGTHS.length; i++)
        {
            final byte[] bytes = pattern(LENGTHS[i]);
            assertEquals(EXPECTED[i], KeyHash.hash(bytes), "array, length " + LENGTHS[i]);
            assertEquals(EXPECTED[i], KeyHash.hash(new UnsafeBuffer(bytes), 0, bytes.length), "buffer " + LENGTHS[i]);

            // At an odd offset inside a larger direct buffer: no alignment assumptions.
            final UnsafeBuffer direct = new UnsafeBuffer(ByteBuffer.allocateDirect(bytes.length + 3));
            direct.putBytes(3, bytes);
            assertEquals(EXPECTED[i], KeyHash.hash(direct, 3, bytes.length), "direct, length " + LENGTHS[i]);

            final byte[] padded = new byte[bytes.length + 5];
            System.arraycopy(bytes, 0, padded, 5, bytes.length);
            assertEquals(EXPECTED[i], KeyHash.hash(padded, 5, bytes.length), "array offset, length " + LENGTHS[i]);
        }
    }

    @Test
    void shouldRefuseARangeOutsideTheArray()
    {
        final byte[] bytes = new byte[8];
        assertThrows(IndexOutOfBoundsException.class, () -> KeyHash.hash(bytes, 5, 4));
        assertThrows(IndexOutOfBoundsException.class, () -> KeyHash.hash(bytes, -1, 2));
        assertThrows(IndexOutOfBoundsException.class, () -> KeyHash.hash(bytes, 0, -1));
        assertEquals(KeyHash.hash(new byte[0]), KeyHash.hash(bytes, 8, 0), "an empty range at the end is a key");
    }

    @Test
    void shouldNeverProduceZeroFingerprint()
    {
        assertEquals(1, KeyHash.fingerprint(0x0000_FFFF_FFFF_FFFFL));
        assertEquals(0xFFFF, KeyHash.fingerprint(0xFFFF_0000_0000_0000L));
        assertEquals(0x1234, KeyHash.fingerprint(0x1234_0000_0000_0000L));
        final Random random = new Random(7);
        for (int i = 0; i < 100_000; i++)
        {
            final int fp = KeyHash.fingerprint(random.nextLong());
            assertTrue(fp >= 1 && fp <= 0xFFFF);
        }
    }

    @Test
    void shouldGiveTwoDistinctCandidateBucketsInRange()
    {
        final Random random = new Random(11);
        for (final long buckets : new long[] {2, 4, 1024, 1L << 20, 1L << 33})
        {
            for (int i = 0; i < 10_000; i++)
            {
                final long h = random.nextLong();
                final long p = KeyHash.primaryBucket(h, buckets);
                final long s = KeyHash.secondaryBucket(h, buckets);
                assertTrue(p >= 0 && p < buckets);
                assertTrue(s >= 0 && s < buckets);
                assertNotEquals(p, s);
            }
        }
        assertEquals(0, KeyHash.secondaryBucket(0x1234_5678L, 1));
    }

    @Test
    void shouldMapKeysToHashSlotsAsRedisClusterDoes()
    {
        // Redis Cluster specification: HASH_SLOT = CRC16(key) mod 16384, CRC16 being XMODEM; "123456789" -> 0x31C3.
        assertEquals(0x31C3, KeyHash.hashSlot(ascii("123456789")));
        assertEquals(12739, KeyHash.hashSlot(ascii("123456789")));
        // The slots redis-cli's CLUSTER KEYSLOT gives (and the Redis documentation's examples).
        assertEquals(12182, KeyHash.hashSlot(ascii("foo")));
        assertEquals(5061, KeyHash.hashSlot(ascii("bar")));
        assertEquals(0, KeyHash.hashSlot(ascii("")));
        // Hash tags: only what is between the first { and the first } after it counts, when it is not empty.
        assertEquals(KeyHash.hashSlot(ascii("user1000")), KeyHash.hashSlot(ascii("{user1000}.following")));
        assertEquals(KeyHash.hashSlot(ascii("{user1000}.following")),
            KeyHash.hashSlot(ascii("{user1000}.followers")));
        assertEquals(KeyHash.hashSlot(ascii("bar")), KeyHash.hashSlot(ascii("foo{bar}{zap}")));
        assertEquals(crc16Of("{bar"), KeyHash.hashSlot(ascii("{bar")), "no closing brace: the whole key");
        assertEquals(crc16Of("foo{}{bar}"), KeyHash.hashSlot(ascii("foo{}{bar}")), "an empty tag: the whole key");
        assertEquals(crc16Of("{zap"), KeyHash.hashSlot(ascii("foo{{zap}}")), "the first { to the first }");
        final Random random = new Random(34);
        for (int i = 0; i < 1000; i++)
        {
            final String key = Long.toString(random.nextLong(), 36) + "-" + i;
            assertEquals(crc16Of(key), KeyHash.hashSlot(ascii(key)), key);
        }
        // A key inside a larger buffer hashes as the key alone.
        final byte[] framed = ascii("xx{user1000}.followingyy");
        assertEquals(KeyHash.hashSlot(ascii("{user1000}.following")),
            KeyHash.hashSlot(new UnsafeBuffer(framed), 2, framed.length - 4));
    }

    /** CRC16-XMODEM bit by bit, without the table (the reference the table is checked against), mod 16384. */
    private static int crc16Of(final String key)
    {
        int crc = 0;
        for (final byte b : ascii(key))
        {
            crc ^= (b & 0xFF) << 8;
            for (int i = 0; i < 8; i++)
            {
                crc = (crc & 0x8000) != 0 ? ((crc << 1) ^ 0x1021) & 0xFFFF : (crc << 1) & 0xFFFF;
            }
        }
        return crc & 16383;
    }

    @Test
    void shouldSpreadKeysEvenlyOverBucketsAndHashSlots()
    {
        final int keys = 100_000;
        final int buckets = 1024;
        final int[] primary = new int[buckets];
        final int[] secondary = new int[buckets];
        final int[] hashSlots = new int[ProtocolLimits.HASH_SLOT_COUNT];
        final int[] bucketsOfOneNode = new int[buckets];
        for (int i = 0; i < keys; i++)
        {
            final long h = KeyHash.hash(ascii("user:" + i));
            primary[(int)KeyHash.primaryBucket(h, buckets)]++;
            secondary[(int)KeyHash.secondaryBucket(h, buckets)]++;
            final int hashSlot = KeyHash.hashSlot(ascii("user:" + i));
            assertTrue(hashSlot >= 0 && hashSlot < ProtocolLimits.HASH_SLOT_COUNT);
            hashSlots[hashSlot]++;
            if (hashSlot < ProtocolLimits.HASH_SLOT_COUNT / 4)
            {
                // A node owning a quarter of the slots must still use all of its buckets evenly.
                bucketsOfOneNode[(int)KeyHash.primaryBucket(h, buckets)]++;
            }
        }
        final double average = (double)keys / buckets;
        assertTrue(max(primary) < average * 1.5, "primary max " + max(primary) + " avg " + average);
        assertTrue(min(primary) > average * 0.5, "primary min " + min(primary));
        assertTrue(max(secondary) < average * 1.5, "secondary max " + max(secondary));
        assertTrue(min(secondary) > average * 0.5, "secondary min " + min(secondary));
        assertTrue(max(hashSlots) < 25, "cluster slot max " + max(hashSlots) + " for avg 6.1");
        final double quarter = average / 4;
        assertTrue(max(bucketsOfOneNode) < quarter * 2.2 && min(bucketsOfOneNode) > 0,
            "one node's buckets: max " + max(bucketsOfOneNode) + " min " + min(bucketsOfOneNode) + " avg " + quarter);
    }

    private static int max(final int[] values)
    {
        int m = Integer.MIN_VALUE;
        for (final int v : values)
        {
            m = Math.max(m, v);
        }
        return m;
    }

    private static int min(final int[] values)
    {
        int m = Integer.MAX_VALUE;
        for (final int v : values)
        {
            m = Math.min(m, v);
        }
        return m;
    }

    private static byte[] pattern(final int length)
    {
        final byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++)
        {
            bytes[i] = (byte)(i * 31 + 7);
        }
        return bytes;
    }

    static byte[] ascii(final String s)
    {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}

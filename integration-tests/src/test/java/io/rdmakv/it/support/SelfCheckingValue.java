package io.rdmakv.it.support;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A value that carries the proof of its own identity, so a reader can tell a torn value, a value written for another
 * key, or a value that was never written, without any side table.
 *
 * <pre>
 *   0                   1                   2                   3
 *   0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *  +---------------------------------------------------------------+
 *  |                     Magic "SCV1" (u32)                        |
 *  +---------------------------------------------------------------+
 *  |                     CRC32C of bytes [8, length) (u32)         |
 *  +---------------------------------------------------------------+
 *  |                     Length of the whole value (u32)           |
 *  +---------------------------------------------------------------+
 *  |                     Key length (u32)                          |
 *  +---------------------------------------------------------------+
 *  |                     Key hash (u64)                            |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Sequence number (u64)                     |
 *  |                                                               |
 *  +---------------------------------------------------------------+
 *  |                     Payload: SplitMix64 stream seeded by     ...
 *  ...                   (key hash, sequence), length - 32 bytes   |
 *  +---------------------------------------------------------------+
 *  all fields little-endian; the smallest value is 32 bytes
 * </pre>
 *
 * The payload is regenerated on decode and compared byte for byte, so a value passes only when every byte is the one
 * its writer produced for exactly this key and sequence; the CRC additionally catches a torn header.
 */
public final class SelfCheckingValue
{
    public static final int MAGIC = 0x31564353; // "SCV1" little-endian
    public static final int HEADER_LENGTH = 32;

    private static final int MAGIC_OFFSET = 0;
    private static final int CRC_OFFSET = 4;
    private static final int LENGTH_OFFSET = 8;
    private static final int KEY_LENGTH_OFFSET = 12;
    private static final int KEY_HASH_OFFSET = 16;
    private static final int SEQUENCE_OFFSET = 24;

    /** Outcome of {@link #check}: stable and exception-free so a reader thread can count them. */
    public enum Verdict
    {
        OK,
        /** Shorter than the header or its length field disagrees with the bytes received. */
        BAD_LENGTH,
        BAD_MAGIC,
        /** A well-formed value written for another key. */
        WRONG_KEY,
        /** The CRC or the payload pattern does not match: bytes of different writes mixed. */
        TORN
    }

    private SelfCheckingValue()
    {
    }

    /** Encode a value of exactly {@code length} bytes (at least {@link #HEADER_LENGTH}) for {@code key}. */
    public static byte[] encode(final byte[] key, final long sequence, final int length)
    {
        if (length < HEADER_LENGTH)
        {
            throw new IllegalArgumentException("a self-checking value needs at least " + HEADER_LENGTH +
                " bytes, asked for " + length);
        }
        final byte[] value = new byte[length];
        final ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        final long keyHash = keyHash(key);
        b.putInt(MAGIC_OFFSET, MAGIC);
        b.putInt(LENGTH_OFFSET, length);
        b.putInt(KEY_LENGTH_OFFSET, key.length);
        b.putLong(KEY_HASH_OFFSET, keyHash);
        b.putLong(SEQUENCE_OFFSET, sequence);
        fillPayload(value, keyHash, sequence);
        b.putInt(CRC_OFFSET, crc(value));
        return value;
    }

    /** Check {@code value} against {@code key}; never throws. */
    public static Verdict check(final byte[] key, final byte[] value)
    {
        if (value == null || value.length < HEADER_LENGTH)
        {
            return Verdict.BAD_LENGTH;
        }
        final ByteBuffer b = ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(MAGIC_OFFSET) != MAGIC)
        {
            return Verdict.BAD_MAGIC;
        }
        if (b.getInt(LENGTH_OFFSET) != value.length)
        {
            return Verdict.BAD_LENGTH;
        }
        if (b.getInt(CRC_OFFSET) != crc(value))
        {
            return Verdict.TORN;
        }
        final long keyHash = b.getLong(KEY_HASH_OFFSET);
        if (keyHash != keyHash(key) || b.getInt(KEY_LENGTH_OFFSET) != key.length)
        {
            return Verdict.WRONG_KEY;
        }
        if (!payloadMatches(value, keyHash, b.getLong(SEQUENCE_OFFSET)))
        {
            return Verdict.TORN;
        }
        return Verdict.OK;
    }

    /** The sequence number of a value that {@link #check} accepted. */
    public static long sequence(final byte[] value)
    {
        return ByteBuffer.wrap(value).order(ByteOrder.LITTLE_ENDIAN).getLong(SEQUENCE_OFFSET);
    }

    /** Convenience for tests that name keys by text. */
    public static byte[] key(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    /** FNV-1a 64 finished by a SplitMix64 round: independent of the store's own KeyHash on purpose. */
    static long keyHash(final byte[] key)
    {
        long h = 0xcbf29ce484222325L;
        for (final byte k : key)
        {
            h ^= k & 0xFF;
            h *= 0x100000001b3L;
        }
        return mix(h);
    }

    private static int crc(final byte[] value)
    {
        final CRC32C crc = new CRC32C();
        crc.update(value, LENGTH_OFFSET, value.length - LENGTH_OFFSET);
        return (int)crc.getValue();
    }

    private static void fillPayload(final byte[] value, final long keyHash, final long sequence)
    {
        long state = keyHash ^ mix(sequence);
        int i = HEADER_LENGTH;
        while (i < value.length)
        {
            state += 0x9E3779B97F4A7C15L;
            long word = mix(state);
            for (int j = 0; j < 8 && i < value.length; j++, i++)
            {
                value[i] = (byte)word;
                word >>>= 8;
            }
        }
    }

    /** Regenerate the payload {@link #fillPayload} wrote for (keyHash, sequence) and compare it byte for byte. */
    private static boolean payloadMatches(final byte[] value, final long keyHash, final long sequence)
    {
        final byte[] expected = new byte[value.length];
        fillPayload(expected, keyHash, sequence);
        return Arrays.equals(value, HEADER_LENGTH, value.length, expected, HEADER_LENGTH, value.length);
    }

    private static long mix(final long x)
    {
        long z = x;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

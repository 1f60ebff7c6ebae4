package io.rdmakv.cli.bench;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;

/**
 * Key and value bytes of a run: key {@code i} is {@code "k"} followed by {@code i} in decimal, left-padded with
 * zeros to the key size (ASCII, no spaces: valid for memcached's text protocol too). Values are drawn from a small set
 * of fixed random arrays of the value size, never changed after creation (drivers may hold on to them while in
 * flight).
 */
public final class KeySpace
{
    /** Distinct value arrays the generator keeps. */
    static final int VALUE_VARIANTS = 16;

    private final int keySize;
    private final byte[][] values;

    /**
     * @param keySize bytes per key, enough for "k" and the largest index.
     * @param valueSize bytes per value.
     * @param maxIndex the largest index that will be asked for (loaded keys plus inserts).
     */
    public KeySpace(final int keySize, final int valueSize, final long maxIndex)
    {
        final int digits = Long.toString(Math.max(0, maxIndex)).length();
        if (keySize < digits + 1)
        {
            throw new BenchException("--key-size " + keySize + " is too small for " + (maxIndex + 1) +
                " keys: needs at least " + (digits + 1) + " bytes");
        }
        if (valueSize < 0)
        {
            throw new BenchException("--value-size must not be negative: " + valueSize);
        }
        this.keySize = keySize;
        this.values = new byte[VALUE_VARIANTS][valueSize];
        final SplittableRandom random = new SplittableRandom(7);
        for (final byte[] value : values)
        {
            for (int i = 0; i < valueSize; i++)
            {
                // Printable bytes, so a value never looks like a protocol delimiter to a human reading a capture.
                value[i] = (byte)('a' + random.nextInt(26));
            }
        }
    }

    /** A new array holding key {@code index}. */
    public byte[] key(final long index)
    {
        final byte[] key = new byte[keySize];
        key[0] = 'k';
        long v = index;
        for (int i = keySize - 1; i > 0; i--)
        {
            key[i] = (byte)('0' + (v % 10));
            v /= 10;
        }
        return key;
    }

    /** A value to write (one of a few fixed arrays: do not modify it). */
    public byte[] value(final long index)
    {
        return values[(int)(index & (VALUE_VARIANTS - 1))];
    }

    public int keySize()
    {
        return keySize;
    }

    public int valueSize()
    {
        return values[0].length;
    }

    static String text(final byte[] key)
    {
        return new String(key, StandardCharsets.US_ASCII);
    }
}

package io.rdmakv.server.load;

/**
 * A reproducible data set for start-up and load measurements: {@code keyCount} keys of {@code keySize} bytes with
 * values of {@code valueSize} bytes, each value derived from its key's index so that a reader can check it belongs to
 * that key (a value served for the wrong key, or a torn one, fails {@link #matches}).
 *
 * <pre>
 *   key i:    'k' then i in decimal, zero-padded to keySize      e.g. keySize 16, i = 42: "k000000000000042"
 *             (the key format of rdmakv bench, so 'rdmakv bench --no-load' with the same --keys/--key-size reads it)
 *   value i:  valueSize bytes: 8-byte little-endian words w[j] = splitmix64(i * 2^20 + j), the last word cut short
 * </pre>
 *
 * <p>Immutable and thread-safe; {@link #key(long, byte[])} and {@link #value(long, byte[])} fill caller arrays, so a
 * loader writes a gigabyte without allocating per key.
 */
public final class SyntheticDataSet
{
    /** Longest key the pool format holds (and the server's default limit). */
    public static final int MAX_KEY_SIZE = 1024;
    /** Largest value the server accepts by default (limits.maxValueBytes). */
    public static final int MAX_VALUE_SIZE = 1 << 20;

    private final long keyCount;
    private final int keySize;
    private final int valueSize;

    /**
     * @throws IllegalArgumentException when the keys cannot hold {@code keyCount} indexes or a size is out of range.
     */
    public SyntheticDataSet(final long keyCount, final int keySize, final int valueSize)
    {
        if (keyCount < 1)
        {
            throw new IllegalArgumentException("key count must be at least 1: " + keyCount);
        }
        final int digits = Long.toString(keyCount - 1).length();
        if (keySize < digits + 1 || keySize > MAX_KEY_SIZE)
        {
            throw new IllegalArgumentException("key size must be in [" + (digits + 1) + ", " + MAX_KEY_SIZE +
                "] for " + keyCount + " keys ('k' and " + digits + " digits): " + keySize);
        }
        if (valueSize < 0 || valueSize > MAX_VALUE_SIZE)
        {
            throw new IllegalArgumentException("value size must be in [0, " + MAX_VALUE_SIZE + "]: " + valueSize);
        }
        this.keyCount = keyCount;
        this.keySize = keySize;
        this.valueSize = valueSize;
    }

    public long keyCount()
    {
        return keyCount;
    }

    public int keySize()
    {
        return keySize;
    }

    public int valueSize()
    {
        return valueSize;
    }

    /** Key and value bytes of the whole set. */
    public long totalBytes()
    {
        return keyCount * (keySize + (long)valueSize);
    }

    /** Key {@code index} into {@code destination} (at least {@link #keySize()} long); returns it. */
    public byte[] key(final long index, final byte[] destination)
    {
        checkIndex(index);
        destination[0] = 'k';
        long v = index;
        for (int i = keySize - 1; i > 0; i--)
        {
            destination[i] = (byte)('0' + (v % 10));
            v /= 10;
        }
        return destination;
    }

    /** A new array holding key {@code index}. */
    public byte[] key(final long index)
    {
        return key(index, new byte[keySize]);
    }

    /** Value {@code index} into {@code destination} (at least {@link #valueSize()} long); returns it. */
    public byte[] value(final long index, final byte[] destination)
    {
        checkIndex(index);
        final long seed = index << 20;
        int at = 0;
        for (long j = 0; at < valueSize; j++)
        {
            long w = splitMix64(seed + j);
            for (int b = 0; b < 8 && at < valueSize; b++, at++)
            {
                destination[at] = (byte)w;
                w >>>= 8;
            }
        }
        return destination;
    }

    /** A new array holding value {@code index}. */
    public byte[] value(final long index)
    {
        return value(index, new byte[valueSize]);
    }

    /** True when {@code value} is exactly value {@code index}. */
    public boolean matches(final long index, final byte[] value)
    {
        if (value == null || value.length != valueSize)
        {
            return false;
        }
        return java.util.Arrays.equals(value, value(index));
    }

    /** The index of {@code key}, or -1 when it is not a key of this set. */
    public long indexOf(final byte[] key)
    {
        if (key == null || key.length != keySize || key[0] != 'k')
        {
            return -1;
        }
        long v = 0;
        for (int i = 1; i < keySize; i++)
        {
            final int d = key[i] - '0';
            if (d < 0 || d > 9 || v > (Long.MAX_VALUE - d) / 10)
            {
                return -1;
            }
            v = v * 10 + d;
        }
        return v < keyCount ? v : -1;
    }

    @Override
    public String toString()
    {
        return keyCount + " keys x (" + keySize + " B key + " + valueSize + " B value)";
    }

    private void checkIndex(final long index)
    {
        if (index < 0 || index >= keyCount)
        {
            throw new IndexOutOfBoundsException("key index " + index + " not in [0, " + keyCount + ")");
        }
    }

    /** Steele, Lea and Flood's SplitMix64 finaliser: a cheap, well-mixed function of the counter. */
    private static long splitMix64(final long x)
    {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }
}

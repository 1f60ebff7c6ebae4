package io.rdmakv.pool.alloc;

import java.util.Arrays;

/**
 * The extent size classes, in units of 64 bytes (one cache line). Classes are every unit up to 16 units (1 KiB),
 * then geometric with 8 sub-steps per doubling: in {@code (2^k, 2^(k+1)]} units the step is {@code 2^(k-3)} units.
 * The last class is clipped to the largest size asked for ({@link #MAX_UNITS} units, the 15-bit length field of an
 * index slot, or less: the {@link ExtentAllocator} uses the classes up to 8 pages, 32 KiB by default, for its small
 * extents, and gives larger ones whole pages).
 *
 * <pre>
 *   units:  1 2 3 .. 16 | 18 20 .. 32 | 36 40 .. 64 | ... | 18432 20480 .. 30720 32767
 *   bytes:  64 .. 1 KiB |  step 128 B |  step 256 B | ... |       step 128 KiB    (2 MiB - 64 B)
 * </pre>
 *
 * <p><b>Rounding bound.</b> For a request of {@code r} bytes the granted class size {@code g} satisfies
 * {@code g - r < 64} when {@code r <= 1 KiB} and {@code g - r < r / 8} (under 12.5% of the request) above it,
 * because the step in {@code (2^k, 2^(k+1)]} units is {@code 2^k / 8} units and the request exceeds {@code 2^k}
 * units. Only requests under 512 B can lose more than 1/8 each (to 64-byte alignment), and they are under 1% of
 * a uniform 64 B..64 KiB mix, so for sizes uniform between 64 B and 64 KiB the total waste is at most 12.5% of
 * the bytes requested (exactly 4.2% summed over every size from 64 B to 64 KiB; tested). The largest class of the
 * full set (32767 units) holds a 1 MiB value, a 1 KiB key and a 64 B header.
 *
 * <p>Immutable; the lookup is one array load (a 64 KiB table built once).
 */
public final class SizeClasses
{
    /** Bytes per allocation unit: a cache line. */
    public static final int UNIT = 64;
    /** log2 of {@link #UNIT}. */
    public static final int UNIT_SHIFT = 6;
    /** The largest extent in units: the index slot's 15-bit length field. */
    public static final int MAX_UNITS = (1 << 15) - 1;
    /** Sub-steps per doubling: gives the 1/8 rounding bound. */
    public static final int SUB_STEPS = 8;

    private final int[] classUnits;
    private final short[] classOfUnits;

    /**
     * @param maxUnits the largest class in units, in [1, {@link #MAX_UNITS}] (e.g. the slab size in units).
     */
    public SizeClasses(final int maxUnits)
    {
        if (maxUnits < 1 || maxUnits > MAX_UNITS)
        {
            throw new IllegalArgumentException("maxUnits must be in [1, " + MAX_UNITS + "]: " + maxUnits);
        }
        final int[] units = new int[256];
        int count = 0;
        for (int n = 1; n <= 2 * SUB_STEPS && n <= maxUnits; n++)
        {
            units[count++] = n;
        }
        for (int base = 2 * SUB_STEPS; base < maxUnits; base <<= 1)
        {
            final int step = base / SUB_STEPS;
            for (int j = 1; j <= SUB_STEPS && base + j * step <= maxUnits; j++)
            {
                units[count++] = base + j * step;
            }
        }
        if (units[count - 1] < maxUnits)
        {
            units[count++] = maxUnits;
        }
        classUnits = Arrays.copyOf(units, count);

        classOfUnits = new short[maxUnits + 1];
        int cls = 0;
        for (int n = 1; n <= maxUnits; n++)
        {
            if (n > classUnits[cls])
            {
                cls++;
            }
            classOfUnits[n] = (short)cls;
        }
    }

    /** The number of classes. */
    public int classCount()
    {
        return classUnits.length;
    }

    /** The largest extent in bytes. */
    public int maxBytes()
    {
        return classUnits[classUnits.length - 1] << UNIT_SHIFT;
    }

    /** The size of class {@code classIndex} in bytes. */
    public int sizeOfClass(final int classIndex)
    {
        return classUnits[classIndex] << UNIT_SHIFT;
    }

    /** The size of class {@code classIndex} in 64-byte units. */
    public int unitsOfClass(final int classIndex)
    {
        return classUnits[classIndex];
    }

    /** The smallest class holding {@code bytes}, or -1 if {@code bytes} is not in [1, {@link #maxBytes()}]. */
    public int classOf(final int bytes)
    {
        if (bytes <= 0 || bytes > maxBytes())
        {
            return -1;
        }
        return classOfUnits[(bytes + UNIT - 1) >>> UNIT_SHIFT];
    }
}

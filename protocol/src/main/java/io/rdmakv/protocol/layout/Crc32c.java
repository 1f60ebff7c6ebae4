package io.rdmakv.protocol.layout;

import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * CRC32C over a range of a {@link DirectBuffer} without copying it. Not thread-safe: one per flyweight/thread.
 *
 * <ul>
 *   <li>array-backed buffers: {@link CRC32C#update(byte[], int, int)} on the array itself;</li>
 *   <li>{@link ByteBuffer}-backed buffers (the client's read buffers; the pool's partitions, which memory-pool backs
 *       with ByteBuffers for exactly this): a cached duplicate of that ByteBuffer, positioned over the range, so
 *       the JDK's intrinsic runs on the memory in place. Duplicates are kept per backing ByteBuffer (up to
 *       {@link #MAX_CACHED_VIEWS}, e.g. one per pool partition), so alternating between partitions does not
 *       allocate;</li>
 *   <li>buffers over a raw address (no array, no ByteBuffer): a slicing-by-8 table implementation reading the memory
 *       through the buffer, because the JDK offers no public way to view a raw address as a ByteBuffer. It is
 *       20-40 times slower than the intrinsic (see benchmarks' ExtentVerifyBenchmark): give hot paths a
 *       ByteBuffer-backed view.</li>
 * </ul>
 */
final class Crc32c
{
    private static final int POLY = 0x82F63B78;
    private static final int[] TABLE = table();
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    /** Backing ByteBuffers remembered with their duplicate; beyond that the oldest entry is replaced. */
    static final int MAX_CACHED_VIEWS = 64;

    private final CRC32C crc = new CRC32C();
    private final ByteBuffer[] cachedSources = new ByteBuffer[MAX_CACHED_VIEWS];
    private final ByteBuffer[] cachedViews = new ByteBuffer[MAX_CACHED_VIEWS];
    private int cachedCount;
    private int lastHit;
    private int nextReplaced;

    int compute(final DirectBuffer buffer, final int offset, final int length)
    {
        final byte[] array = buffer.byteArray();
        if (array != null)
        {
            crc.reset();
            crc.update(array, buffer.wrapAdjustment() + offset, length);
            return (int)crc.getValue();
        }
        final ByteBuffer source = buffer.byteBuffer();
        if (source != null)
        {
            final ByteBuffer view = viewOf(source);
            final int start = buffer.wrapAdjustment() + offset;
            view.clear().limit(start + length).position(start);
            crc.reset();
            crc.update(view);
            return (int)crc.getValue();
        }
        return software(buffer, offset, length);
    }

    /** This instance's own duplicate of {@code source} (whose position and limit it may move). */
    private ByteBuffer viewOf(final ByteBuffer source)
    {
        if (cachedSources[lastHit] == source)
        {
            return cachedViews[lastHit];
        }
        for (int i = 0; i < cachedCount; i++)
        {
            if (cachedSources[i] == source)
            {
                lastHit = i;
                return cachedViews[i];
            }
        }
        final int cacheIndex;
        if (cachedCount < MAX_CACHED_VIEWS)
        {
            cacheIndex = cachedCount++;
        }
        else
        {
            cacheIndex = nextReplaced;
            nextReplaced = (nextReplaced + 1) % MAX_CACHED_VIEWS;
        }
        cachedSources[cacheIndex] = source;
        cachedViews[cacheIndex] = source.duplicate();
        lastHit = cacheIndex;
        return cachedViews[cacheIndex];
    }

    /** Table-driven CRC32C (Castagnoli, reflected), eight bytes per step. */
    static int software(final DirectBuffer buffer, final int offset, final int length)
    {
        int c = 0xFFFF_FFFF;
        int i = offset;
        final int end = offset + length;
        while (i + 8 <= end)
        {
            final long v = buffer.getLong(i, ORDER);
            final int lo = (int)v ^ c;
            final int hi = (int)(v >>> 32);
            c = TABLE[7 * 256 + (lo & 0xFF)] ^ TABLE[6 * 256 + ((lo >>> 8) & 0xFF)] ^
                TABLE[5 * 256 + ((lo >>> 16) & 0xFF)] ^ TABLE[4 * 256 + (lo >>> 24)] ^
                TABLE[3 * 256 + (hi & 0xFF)] ^ TABLE[2 * 256 + ((hi >>> 8) & 0xFF)] ^
                TABLE[256 + ((hi >>> 16) & 0xFF)] ^ TABLE[hi >>> 24];
            i += 8;
        }
        while (i < end)
        {
            c = (c >>> 8) ^ TABLE[(c ^ buffer.getByte(i)) & 0xFF];
            i++;
        }
        return ~c;
    }

    private static int[] table()
    {
        final int[] t = new int[8 * 256];
        for (int n = 0; n < 256; n++)
        {
            int c = n;
            for (int k = 0; k < 8; k++)
            {
                c = (c & 1) != 0 ? (c >>> 1) ^ POLY : c >>> 1;
            }
            t[n] = c;
        }
        for (int n = 0; n < 256; n++)
        {
            for (int s = 1; s < 8; s++)
            {
                final int prev = t[(s - 1) * 256 + n];
                t[s * 256 + n] = (prev >>> 8) ^ t[prev & 0xFF];
            }
        }
        return t;
    }
}

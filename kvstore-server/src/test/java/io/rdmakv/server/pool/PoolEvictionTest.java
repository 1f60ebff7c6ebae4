package io.rdmakv.server.pool;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.PoolGeometry;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link PoolEviction}, driven through {@link PoolIndex#put} as the server drives it: CLOCK in a full bucket pair,
 * the hand over a full allocator, eviction windows, the headroom rule.
 */
class PoolEvictionTest extends AbstractPoolIndexTest
{
    @Test
    void shouldEvictWithinAFullBucketPairAndClearComplete()
    {
        final long size = 1L << 20;
        // One bucket: both choices are the same 8 slots.
        final PoolIndex index = newIndex(size, PoolGeometry.plan(size, 1), 0);
        final LayoutReader reader = reader();
        index.markComplete();
        assertTrue(reader.isComplete());
        for (int i = 0; i < 8; i++)
        {
            assertEquals(PoolIndex.STORED, index.put(b("k" + i), b("v" + i), true));
        }
        assertTrue(reader.isComplete());
        assertEquals(0, index.evictions());

        assertEquals(PoolIndex.STORED, index.put(b("k8"), b("v8"), true));
        assertEquals(1, index.evictions());
        assertFalse(reader.isComplete(), "an eviction clears COMPLETE");
        assertArrayEquals(b("v8"), reader.get(b("k8")));
        int present = 0;
        for (int i = 0; i < 8; i++)
        {
            final byte[] v = reader.get(b("k" + i));
            if (v != null)
            {
                assertArrayEquals(b("v" + i), v);
                present++;
            }
        }
        assertEquals(7, present);
        assertEquals(8, index.keyCount());
    }

    @Test
    void shouldSpareAnEntryThatAnRpcGetTouchedSinceTheHandLastPassedIt()
    {
        final long size = 1L << 20;
        // One bucket: both choices are the same 8 slots, filled in order (k0 in slot 0 ... k7 in slot 7).
        final PoolIndex index = newIndex(size, PoolGeometry.plan(size, 1), 0);
        final LayoutReader reader = reader();
        for (int i = 0; i < 8; i++)
        {
            assertEquals(PoolIndex.STORED, index.put(b("k" + i), b("v" + i), true));
        }
        // Every entry is referenced when published: the hand clears all eight bits, then takes slot 0 (k0).
        assertEquals(PoolIndex.STORED, index.put(b("k8"), b("v8"), true));
        assertNull(reader.get(b("k0")));

        // Slot 0 (k8) is referenced by its publication, slot 1 (k1) by an RPC GET: the hand passes both.
        assertEquals(2, index.copyValue(HashedKey.of(b("k1")), new UnsafeBuffer(new byte[16]), 0, 16));
        assertEquals(PoolIndex.STORED, index.put(b("k9"), b("v9"), true));
        assertEquals(2, index.evictions());
        assertArrayEquals(b("v1"), reader.get(b("k1")), "the touched entry survives");
        assertNull(reader.get(b("k2")), "the first unreferenced entry after it is the victim");
        assertArrayEquals(b("v8"), reader.get(b("k8")));
        assertArrayEquals(b("v9"), reader.get(b("k9")));
    }

    @Test
    void shouldEvictColdExtentsWhenThePoolIsFullAndNeverServeAStaleValue()
    {
        final long size = 1L << 20;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 1024), 0);
        final LayoutReader reader = reader();
        index.markComplete();
        final byte[] value = new byte[900];
        int notCached = 0;
        for (int i = 0; i < 3000; i++)
        {
            value[0] = (byte)i;
            value[1] = (byte)(i >> 8);
            if (index.put(b("key-" + i), value, true) == PoolIndex.NOT_CACHED)
            {
                notCached++;
            }
        }
        assertTrue(index.evictions() > 0, "evictions " + index.evictions());
        assertFalse(reader.isComplete());
        assertTrue(notCached < 3000 / 2, "grace 0: evicted space is reused at once; not cached " + notCached);
        int present = 0;
        for (int i = 0; i < 3000; i++)
        {
            final byte[] v = reader.get(b("key-" + i));
            if (v != null)
            {
                assertEquals((byte)i, v[0]);
                assertEquals((byte)(i >> 8), v[1]);
                present++;
            }
        }
        assertEquals(index.keyCount(), present);
        assertTrue(present > 100, "present " + present);
    }

    @Test
    void shouldStopEvictingWhileEnoughEvictedBytesAreStillInTheirGracePeriod()
    {
        final long size = 1L << 20;
        // A roomy index (sized for 64 B entries): only a full allocator causes evictions here; the clock never moves.
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 64), 1_000_000_000L);
        final byte[] value = new byte[900];
        int notCached = 0;
        for (int i = 0; i < 3000; i++)
        {
            if (index.put(b("key-" + i), value, true) == PoolIndex.NOT_CACHED)
            {
                notCached++;
            }
        }
        // Without the headroom rule every refused put would evict another batch and drain the whole pool.
        final long headroomExtents = Math.max(8, (index.geometry().extentsLength() >>> 6) / 1024);
        assertTrue(index.evictions() <= headroomExtents + PoolEviction.EVICT_BATCH, "evictions " + index.evictions());
        assertTrue(notCached > 2000, "not cached " + notCached);
        assertTrue(index.keyCount() > 400, "the pool stays mostly full: " + index.keyCount());
    }

    @Test
    void shouldMakeRoomForALargeValueInAPoolFullOfSmallOnesOnceTheGracePeriodHasPassed()
    {
        final long size = 2L << 20;
        final long grace = 1_000_000L;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 256), grace);
        final LayoutReader reader = reader();
        assertEquals(PoolIndex.STORED, index.put(b("hot"), b("old value"), true));
        // Small values over ~30 size classes until the pool refuses them (no eviction yet).
        final Random random = new Random(3);
        final Map<String, byte[]> expected = new HashMap<>();
        int refusedInARow = 0;
        for (int i = 0; refusedInARow < 100; i++)
        {
            final byte[] value = new byte[40 + random.nextInt(3000)];
            random.nextBytes(value);
            if (index.put(b("small-" + i), value, false) == PoolIndex.STORED)
            {
                expected.put("small-" + i, value);
                refusedInARow = 0;
            }
            else
            {
                refusedInARow++;
            }
        }
        assertEquals(0, index.evictions());

        // No extent in the pool is as large: the allocator names a window of pages and its entries are evicted.
        final byte[] big = new byte[200_000];
        random.nextBytes(big);
        assertEquals(PoolIndex.NOT_CACHED, index.put(b("big"), big, true), "the window is free after the grace");
        final long evicted = index.evictions();
        assertTrue(evicted > 0);
        now += grace;
        assertEquals(PoolIndex.STORED, index.put(b("big"), big, true));
        assertArrayEquals(big, reader.get(b("big")));
        assertEquals(evicted, index.evictions(), "no further eviction was needed");

        // An update whose own extent lies in the next window keeps it until the new value is placed, and never
        // leaves the old value readable when it cannot be.
        int stored = 0;
        for (int round = 0; round < 20 && stored == 0; round++)
        {
            final int status = index.put(b("hot"), big, true);
            final byte[] seen = reader.get(b("hot"));
            if (status == PoolIndex.STORED)
            {
                stored++;
                assertArrayEquals(big, seen);
            }
            else
            {
                assertNull(seen, "an overwritten value must not stay readable");
            }
            now += grace;
        }
        assertEquals(1, stored, "placed within a few grace periods");

        int present = 0;
        for (final Map.Entry<String, byte[]> e : expected.entrySet())
        {
            final byte[] v = reader.get(b(e.getKey()));
            if (v != null)
            {
                assertArrayEquals(e.getValue(), v, e.getKey());
                present++;
            }
        }
        present += reader.get(b("hot")) != null ? 1 : 0;
        final byte[] bigSeen = reader.get(b("big"));           // may have been in hot's window
        if (bigSeen != null)
        {
            assertArrayEquals(big, bigSeen);
            present++;
        }
        assertEquals(index.keyCount(), present, "every slot left points at its own key's extent");
        assertTrue(present > expected.size() / 2, "a window evicts a few entries, not the pool: " + present);
        assertFalse(reader.isComplete());
    }
}

package io.rdmakv.server.pool;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ExtentStatus;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link PoolIndex}: publication, out-of-place updates, RETIRED before publish, deletes, warm-up. */
class PoolIndexTest extends AbstractPoolIndexTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPublishValuesAReaderFindsThroughTheLayoutOnly()
    {
        final long size = 4L << 20;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 256), 0);
        final LayoutReader reader = reader();
        assertEquals(7,
            new io.rdmakv.protocol.layout.PoolHeaderFlyweight().wrap(arena.partitions().partition(0), 0).nodeId());

        final Random random = new Random(42);
        final Map<String, byte[]> expected = new HashMap<>();
        for (int i = 0; i < 2000; i++)
        {
            final byte[] value = new byte[random.nextInt(300)];
            random.nextBytes(value);
            expected.put("key-" + i, value);
            assertEquals(PoolIndex.STORED, index.put(b("key-" + i), value, true));
        }
        assertEquals(2000, index.keyCount());
        assertEquals(2000, reader.keyCount());
        expected.forEach((k, v) -> assertArrayEquals(v, reader.get(b(k)), k));
        assertNull(reader.get(b("absent")));

        final UnsafeBuffer out = new UnsafeBuffer(new byte[512]);
        final int n = index.copyValue(HashedKey.of(b("key-5")), out, 0, 512);
        assertEquals(expected.get("key-5").length, n);
        assertEquals(PoolIndex.NOT_FOUND, index.copyValue(HashedKey.of(b("nope")), out, 0, 512));
    }

    @Test
    void shouldUpdateOutOfPlaceAndKeepTheOldExtentIntactForTheGracePeriod()
    {
        final long size = 2L << 20;
        final long grace = 100_000_000L;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 256), grace);
        final LayoutReader reader = reader();

        index.put(b("k"), b("first value"), true);
        assertArrayEquals(b("first value"), reader.get(b("k")));
        final long oldOffset = reader.lastExtentOffset();
        final int oldLength = ValueExtentFlyweight.requiredLength(1, 11);

        index.put(b("k"), b("second value"), true);
        assertArrayEquals(b("second value"), reader.get(b("k")));
        assertNotEquals(oldOffset, reader.lastExtentOffset(), "an update never writes in place");
        assertEquals(1, index.keyCount());

        // A reader that fetched the old entry before the update still verifies a committed value.
        assertArrayEquals(b("first value"), reader.readExtentAt(oldOffset, oldLength, b("k")));
        assertFalse(allocator.isAllocated(oldOffset));

        // Within the grace period the old extent is not handed out again, so its bytes stay.
        for (int i = 0; i < 50; i++)
        {
            index.put(b("other-" + i), b("xxxxxxxxxxx"), true);
        }
        assertArrayEquals(b("first value"), reader.readExtentAt(oldOffset, oldLength, b("k")));

        // After the grace period it is reusable; when reused, it no longer verifies for "k".
        now += grace;
        index.reclaim(now);
        for (int i = 0; i < 50; i++)
        {
            index.put(b("late-" + i), b("yyyyyyyyyyy"), true);
        }
        assertTrue(allocator.isAllocated(oldOffset), "the retired extent is reused after the grace period");
        assertNull(reader.readExtentAt(oldOffset, oldLength, b("k")));
        assertArrayEquals(b("second value"), reader.get(b("k")));
    }

    @Test
    void shouldScribbleOverASupersededExtentAtOnceWhenAskedSoStaleReadsFailTheirCheck()
    {
        final long size = 2L << 20;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 256), 100_000_000L).scribbleRetired(true);
        final LayoutReader reader = reader();

        index.put(b("k"), b("first value"), true);
        assertArrayEquals(b("first value"), reader.get(b("k")));
        final long oldOffset = reader.lastExtentOffset();
        final int oldLength = ValueExtentFlyweight.requiredLength(1, 11);
        index.put(b("k"), b("second value"), true);
        assertArrayEquals(b("second value"), reader.get(b("k")), "the new value is untouched");
        assertNull(reader.readExtentAt(oldOffset, oldLength, b("k")),
            "within the grace period, yet the old extent no longer verifies: a stale reader retries");
        final byte[] copy = new byte[oldLength];
        new UnsafeBuffer(arena.address(), (int)arena.size()).getBytes((int)oldOffset, copy);
        final ValueExtentFlyweight old = new ValueExtentFlyweight().wrap(new UnsafeBuffer(copy), 0, oldLength);
        assertFalse(old.isLive(), "the RETIRED mark stays for cached readers");
        assertNotEquals(ExtentStatus.OK, old.verify(), "the CRC no longer matches");

        final long newOffset = reader.lastExtentOffset();
        assertTrue(index.remove(b("k")));
        assertNull(reader.readExtentAt(newOffset, ValueExtentFlyweight.requiredLength(1, 12), b("k")),
            "a delete scribbles too");
        assertEquals(0, index.keyCount());
    }

    @Test
    void shouldMarkEverySupersededExtentRetiredBeforeReplacingIt()
    {
        final long size = 1L << 20;
        // One bucket (both choices the same 8 entries), so the ninth key evicts; a long grace: nothing is reused.
        final PoolIndex index = newIndex(size, PoolGeometry.plan(size, 1), 1_000_000_000L);
        final LayoutReader reader = reader();

        assertEquals(PoolIndex.STORED, index.put(b("k"), b("first"), true));
        final long firstEntry = index.lastEntry();
        final long firstVersion = index.lastVersion();
        assertEquals(ExtentStatus.OK, reader.readRemembered(firstEntry, b("k"), firstVersion), "live when published");

        // Update: the old extent is RETIRED, the new one LIVE; the old bytes themselves stay intact (grace).
        assertEquals(PoolIndex.STORED, index.put(b("k"), b("second"), true));
        final long secondEntry = index.lastEntry();
        final long secondVersion = index.lastVersion();
        assertNotEquals(firstEntry, secondEntry);
        assertEquals(ExtentStatus.RETIRED, reader.readRemembered(firstEntry, b("k"), firstVersion));
        assertArrayEquals(b("first"), reader.readExtentAt(IndexEntry.extentOffset(firstEntry),
            IndexEntry.extentLength(firstEntry), b("k")), "a reader that followed the old slot still verifies it");
        assertEquals(ExtentStatus.OK, reader.readRemembered(secondEntry, b("k"), secondVersion));

        // Delete.
        assertTrue(index.remove(b("k")));
        assertEquals(ExtentStatus.RETIRED, reader.readRemembered(secondEntry, b("k"), secondVersion));

        // Eviction from a full bucket pair: exactly the victim is retired.
        final long[] entries = new long[9];
        final long[] versions = new long[9];
        for (int i = 0; i < 9; i++)
        {
            assertEquals(PoolIndex.STORED, index.put(b("e" + i), b("v" + i), true));
            entries[i] = index.lastEntry();
            versions[i] = index.lastVersion();
        }
        assertEquals(1, index.evictions());
        int retired = 0;
        for (int i = 0; i < 9; i++)
        {
            final ExtentStatus status = reader.readRemembered(entries[i], b("e" + i), versions[i]);
            if (reader.get(b("e" + i)) == null)
            {
                assertEquals(ExtentStatus.RETIRED, status, "evicted e" + i);
                retired++;
            }
            else
            {
                assertEquals(ExtentStatus.OK, status, "present e" + i);
            }
        }
        assertEquals(1, retired);
    }

    @Test
    void shouldDeleteByClearingTheEntryAndRetiringTheExtent()
    {
        final long size = 2L << 20;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 256), 1_000_000L);
        final LayoutReader reader = reader();
        index.put(b("a"), b("1"), true);
        index.put(b("b"), b("2"), true);
        assertArrayEquals(b("1"), reader.get(b("a")));
        final long extent = reader.lastExtentOffset();
        final long published = index.publishedCount();

        assertTrue(index.remove(b("a")));
        assertEquals(published + 1, index.publishedCount(), "a delete is exactly one slot store");
        assertNull(reader.get(b("a")));
        assertArrayEquals(b("2"), reader.get(b("b")));
        assertFalse(allocator.isAllocated(extent));
        assertFalse(index.remove(b("a")));
        assertEquals(1, index.keyCount());
        assertEquals(1, reader.keyCount());
    }

    @Test
    void shouldKeepIndexAndAllocatorConsistentUnderMixedSizesEvictionAndGrace()
    {
        final long size = 2L << 20;
        final long grace = 1_000_000L;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 256), grace);
        final LayoutReader reader = reader();
        final Random random = new Random(17);
        final Map<String, byte[]> latest = new HashMap<>();
        int stored = 0;
        for (int i = 0; i < 20_000; i++)
        {
            now += random.nextInt(200_000);
            final String key = "k" + random.nextInt(600);
            if (random.nextInt(10) == 0)
            {
                index.remove(b(key));
                latest.remove(key);
                continue;
            }
            final int length = random.nextInt(20) == 0 ? random.nextInt(20_000, 300_000) : random.nextInt(4000);
            final byte[] value = new byte[length];
            random.nextBytes(value);
            if (index.put(b(key), value, true) == PoolIndex.STORED)
            {
                stored++;
                latest.put(key, value);
            }
            else
            {
                latest.remove(key);                             // NOT_CACHED drops the key from the pool
            }
        }
        assertTrue(index.evictions() > 0 && stored > 10_000, "evictions " + index.evictions() + ", stored " + stored);
        int present = 0;
        for (int k = 0; k < 600; k++)
        {
            final byte[] seen = reader.get(b("k" + k));
            if (seen != null)
            {
                final byte[] expected = latest.get("k" + k);
                assertTrue(expected != null, "k" + k + " is in the pool but was dropped or deleted");
                assertArrayEquals(expected, seen, "k" + k);
                present++;
            }
        }
        assertEquals(index.keyCount(), present);
        assertEquals(index.keyCount(), allocator.liveExtents(), "one live extent per published slot");
    }

    @Test
    void shouldDropTheOldCopyWhenAnUpdateCannotBePlaced()
    {
        final long size = 1L << 20;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 1024), 1_000_000_000L);
        final LayoutReader reader = reader();
        index.put(b("hot"), b("old"), true);
        final long hotEntry = index.lastEntry();
        final long hotVersion = index.lastVersion();
        // Fill the pool without evicting (warm-up mode) until it refuses.
        final byte[] filler = new byte[900];
        int stored = 0;
        int refusedInARow = 0;
        for (int i = 0; refusedInARow < 100; i++)
        {
            if (index.put(b("fill-" + i), filler, false) == PoolIndex.STORED)
            {
                stored++;
                refusedInARow = 0;
            }
            else
            {
                refusedInARow++;
            }
        }
        assertTrue(stored > 10);
        assertEquals(0, index.evictions(), "puts with mayEvict=false never evict");
        // Same class as the fillers, pool full, evictions only reusable after 1 s: the update cannot be placed.
        final byte[] big = new byte[900];
        big[0] = 42;
        assertEquals(PoolIndex.NOT_CACHED, index.put(b("hot"), big, false));
        assertNull(reader.get(b("hot")), "the pool must not keep serving the overwritten value");
        assertEquals(ExtentStatus.RETIRED, reader.readRemembered(hotEntry, b("hot"), hotVersion),
            "nor may a client that remembers where the old value lives");
        assertFalse(reader.isComplete());
    }

    @Test
    void shouldCarryARecordsDataVersionAndExpiryIntoItsExtent()
    {
        final long size = 4L << 20;
        final PoolIndex index = newIndex(size, PoolSizing.plan(size, 256), 0);
        final LayoutReader reader = reader();
        final byte[] record = ValueRecord.of(b("payload"), 0x0123_4567_89ABL, 1_900_000_000_000L);
        assertEquals(PoolIndex.STORED,
            index.putRecord(HashedKey.of(b("r")), new UnsafeBuffer(record), 0, record.length, true));
        assertArrayEquals(b("payload"), reader.get(b("r")), "the value without the record's header");
        assertEquals(0x0123_4567_89ABL, reader.lastDataVersion());
        assertEquals(1_900_000_000_000L, reader.lastExpiryMillis());
        final UnsafeBuffer out = new UnsafeBuffer(new byte[64]);
        assertEquals(7, index.copyValue(HashedKey.of(b("r")), out, 0, 64));
        final byte[] bare = b("not a record");
        assertThrows(io.rdmakv.protocol.ProtocolException.class,
            () -> index.putRecord(HashedKey.of(b("x")), new UnsafeBuffer(bare), 0, bare.length, true));
        assertNull(reader.get(b("x")), "nothing placed");
    }

    @Test
    void shouldWarmUpFromRocksDbAndMarkCompleteOnlyWhenEverythingFits()
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            for (int i = 0; i < 100; i++)
            {
                store.put(b("w" + i), b("value-" + i));
            }
            final long size = 2L << 20;
            PoolIndex index = newIndex(size, PoolSizing.plan(size, 256), 0);
            PoolWarmUp.Result result = PoolWarmUp.load(store, index, 1024, 1 << 20);
            assertTrue(result.complete());
            assertEquals(100, result.loaded());
            final LayoutReader reader = reader();
            assertTrue(reader.isComplete());
            assertArrayEquals(b("value-42"), reader.get(b("w42")));
            // The extent carries the stored record's data version and expiry (read in the extent's one read).
            assertEquals(ValueRecord.dataVersion(store.getRecord(b("w42"))), reader.lastDataVersion());
            assertEquals(0, reader.lastExpiryMillis());
            long highest = 0;
            for (int i = 0; i < 100; i++)
            {
                highest = Math.max(highest, ValueRecord.dataVersion(store.getRecord(b("w" + i))));
            }
            assertEquals(highest, result.maxDataVersion(), "the node's versions start above the store's highest");
            arena.close();

            for (int i = 0; i < 3000; i++)
            {
                store.put(b("big" + i), new byte[1000]);
            }
            index = newIndex(1L << 20, PoolSizing.plan(1L << 20, 256), 0);
            result = PoolWarmUp.load(store, index, 1024, 1 << 20);
            assertFalse(result.complete());
            assertTrue(result.loaded() > 0 && result.loaded() < 3100);
            assertFalse(reader().isComplete());
            assertEquals(0, index.evictions(), "warm-up never evicts");
        }
    }
}

package io.rdmakv.client.internal;

import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.PoolGeometry;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The location cache as a data structure: bounds, replacement, what it refuses, its seqlock for readers and its
 * writers from several threads.
 */
class LocationCacheTest
{
    private static final PoolGeometry GEOMETRY = PoolGeometry.plan(1 << 20, 64);
    private static final int MAX_EXTENT = 4096;

    private final RequestSlot out = new RequestSlot(0, new UnsafeBuffer(new byte[512]), 256);

    @Test
    void shouldRememberForgetAndPreferNewerVersions()
    {
        final LocationCache cache = new LocationCache(16, GEOMETRY, MAX_EXTENT);
        final long hash = hash("k");
        assertFalse(cache.lookup(hash, out));

        final long first = entryFor(hash, 0);
        assertTrue(cache.remember(hash, first, 10));
        assertTrue(cache.lookup(hash, out));
        assertEquals(first, out.followedEntry);
        assertEquals(10, out.expectedVersion);

        final long second = entryFor(hash, 1);
        assertTrue(cache.remember(hash, second, 11));
        assertFalse(cache.remember(hash, first, 10), "an older version never replaces a newer one");
        assertTrue(cache.lookup(hash, out));
        assertEquals(second, out.followedEntry);

        assertFalse(cache.forget(hash, first), "only the location that went stale is forgotten");
        assertTrue(cache.lookup(hash, out));
        assertTrue(cache.forget(hash, second));
        assertFalse(cache.lookup(hash, out));

        assertTrue(cache.remember(hash, first, 12));
        assertTrue(cache.forget(hash));
        assertFalse(cache.lookup(hash, out));
    }

    @Test
    void shouldRefuseLocationsItCouldNotUse()
    {
        final LocationCache cache = new LocationCache(16, GEOMETRY, MAX_EXTENT);
        final long hash = hash("k");
        final int fp = KeyHash.fingerprint(hash);
        assertFalse(cache.remember(hash, IndexEntry.EMPTY, 1));
        assertFalse(cache.remember(hash, IndexEntry.encode(fp == 1 ? 2 : 1, GEOMETRY.extentsOffset(), 64), 1),
            "another key's fingerprint");
        assertFalse(cache.remember(hash, IndexEntry.encode(fp, 0, 64), 1), "not in the extents range");
        assertFalse(cache.remember(hash, IndexEntry.encode(fp, GEOMETRY.extentsOffset(), MAX_EXTENT + 64), 1),
            "larger than the read buffer");
        assertFalse(cache.lookup(hash, out));
    }

    @Test
    void shouldStayWithinItsCapacityAndKeepTheMostRecentOfASet()
    {
        final LocationCache cache = new LocationCache(100, GEOMETRY, MAX_EXTENT);
        assertEquals(128, cache.capacity(), "rounded up to a power of two");
        final int keys = 1000;
        for (int i = 0; i < keys; i++)
        {
            final long hash = hash("key-" + i);
            assertTrue(cache.remember(hash, entryFor(hash, i), i + 1));
        }
        int found = 0;
        for (int i = 0; i < keys; i++)
        {
            final long hash = hash("key-" + i);
            if (cache.lookup(hash, out))
            {
                assertEquals(entryFor(hash, i), out.followedEntry, "an entry is its key's own");
                found++;
            }
        }
        assertTrue(found <= cache.capacity(), "found " + found);
        assertTrue(found >= cache.capacity() / 2, "most of the space holds something: " + found);
        // The last key written is always there: a full set replaces its oldest entry.
        assertTrue(cache.lookup(hash("key-" + (keys - 1)), out));

        assertEquals(LocationCache.WAYS, new LocationCache(1, GEOMETRY, MAX_EXTENT).capacity());
    }

    @Test
    void shouldBeOffWithCapacityZeroAndRejectBadCapacities()
    {
        final LocationCache off = new LocationCache(0, GEOMETRY, MAX_EXTENT);
        final long hash = hash("k");
        assertFalse(off.enabled());
        assertFalse(off.remember(hash, entryFor(hash, 0), 1));
        assertFalse(off.lookup(hash, out));
        assertFalse(off.forget(hash));
        assertThrows(IllegalArgumentException.class, () -> new LocationCache(-1, GEOMETRY, MAX_EXTENT));
        assertThrows(IllegalArgumentException.class,
            () -> new LocationCache(KvClientBuilder.MAX_LOCATION_CACHE_ENTRIES + 1, GEOMETRY, MAX_EXTENT));
    }

    /**
     * One writer rewrites a few entries as fast as it can while readers look them up: a reader must never see the
     * slot of one write with the version of another (the slot's offset encodes its version here).
     */
    @Test
    @Timeout(30)
    void shouldNeverHandOutAMixOfTwoWrites() throws Exception
    {
        final LocationCache cache = new LocationCache(4, GEOMETRY, MAX_EXTENT);
        final long[] hashes = {hash("a"), hash("b"), hash("c")};
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicLong mixed = new AtomicLong();
        final AtomicLong seen = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        threads.add(new Thread(() ->
        {
            long version = 1;
            while (running.get())
            {
                final long hash = hashes[(int)(version % hashes.length)];
                cache.remember(hash, entryFor(hash, (int)(version % 1000)), version);
                if (version % 7 == 0)
                {
                    cache.forget(hash);
                }
                version++;
            }
        }, "cache-writer"));
        for (int r = 0; r < 2; r++)
        {
            threads.add(new Thread(() ->
            {
                final RequestSlot mine = new RequestSlot(1, new UnsafeBuffer(new byte[512]), 256);
                int i = 0;
                while (running.get())
                {
                    final long hash = hashes[i++ % hashes.length];
                    if (cache.lookup(hash, mine))
                    {
                        seen.incrementAndGet();
                        if (mine.followedEntry != entryFor(hash, (int)(mine.expectedVersion % 1000)))
                        {
                            mixed.incrementAndGet();
                        }
                    }
                }
            }, "cache-reader-" + r));
        }
        threads.forEach(Thread::start);
        // Until the readers found entries often enough beside the writer (a count that must move; the test's
        // timeout bounds a hang), not for a fixed time.
        while (seen.get() <= 1000)
        {
            Thread.sleep(1);
        }
        running.set(false);
        for (final Thread t : threads)
        {
            t.join();
        }
        assertEquals(0, mixed.get(), "lookups that mixed two writes, of " + seen.get());
        assertTrue(seen.get() > 1000, "readers really found entries: " + seen.get());
    }

    /**
     * Writers on several threads (callers whose reads complete on return, and the progress thread) remember versions
     * of the same keys, each writer its own stride of versions, while readers look: a key never has two entries, the
     * newest version remembered wins, and no lookup mixes two writes.
     */
    @Test
    @Timeout(30)
    void shouldKeepOneEntryPerKeyAndTheNewestVersionWithSeveralWriters() throws Exception
    {
        final LocationCache cache = new LocationCache(8, GEOMETRY, MAX_EXTENT);
        final long[] hashes = {hash("a"), hash("b"), hash("c")};
        final int writers = 3;
        final int versionsEach = 20_000;
        final AtomicLong mixed = new AtomicLong();
        final AtomicBoolean writing = new AtomicBoolean(true);
        final List<Thread> threads = new ArrayList<>();
        for (int w = 0; w < writers; w++)
        {
            final int first = w + 1;
            threads.add(new Thread(() ->
            {
                for (long version = first; version <= (long)versionsEach * writers; version += writers)
                {
                    final long hash = hashes[(int)(version % hashes.length)];
                    cache.remember(hash, entryFor(hash, (int)(version % 1000)), version);
                }
            }, "cache-writer-" + w));
        }
        final Thread reader = new Thread(() ->
        {
            final RequestSlot mine = new RequestSlot(1, new UnsafeBuffer(new byte[512]), 256);
            int i = 0;
            while (writing.get())
            {
                final long hash = hashes[i++ % hashes.length];
                if (cache.lookup(hash, mine) && mine.followedEntry != entryFor(hash, (int)(mine.expectedVersion % 1000)))
                {
                    mixed.incrementAndGet();
                }
            }
        }, "cache-reader");
        reader.start();
        threads.forEach(Thread::start);
        for (final Thread t : threads)
        {
            t.join();
        }
        writing.set(false);
        reader.join();
        assertEquals(0, mixed.get(), "lookups that mixed two writes");
        final long last = (long)versionsEach * writers;
        for (final long hash : hashes)
        {
            long newest = 0;
            for (long v = last; v > 0 && newest == 0; v--)
            {
                newest = hashes[(int)(v % hashes.length)] == hash ? v : 0;
            }
            assertTrue(cache.lookup(hash, out));
            assertEquals(newest, out.expectedVersion, "the newest version of each key survives every interleaving");
            assertTrue(cache.forget(hash));
            assertFalse(cache.lookup(hash, out), "one entry per key: forgetting it once leaves none");
        }
    }

    private static long hash(final String key)
    {
        return KeyHash.hash(key.getBytes(StandardCharsets.UTF_8));
    }

    /** A valid slot for the key with {@code hash}, its offset chosen by {@code n}. */
    private static long entryFor(final long hash, final int n)
    {
        return IndexEntry.encode(KeyHash.fingerprint(hash), GEOMETRY.extentsOffset() + 64L * n, 128);
    }
}

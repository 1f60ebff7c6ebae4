package io.rdmakv.server.pool;

import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.PoolGeometry;

/**
 * Which entries {@link PoolIndex} evicts when the pool is full: CLOCK over the index slots. <b>Single writer</b>: it
 * belongs to one {@link PoolIndex} and runs on that index's writer thread; it only chooses victims and counts them,
 * and every slot it clears goes through {@link PoolIndex#clearEntry}, so the index's publication order (COMPLETE
 * cleared first, RETIRED before the slot store) holds for evictions too.
 *
 * <pre>
 *   slot s:       0   1   2   3   4   5  ...  slotCount-1      (bucket b holds slots 8b .. 8b+7)
 *   referenced:  [1] [0] [1] [0] [0] [1] ...  [0]              one byte per slot, server heap, not in the pool
 *                          ^ clock hand: clears a set bit as it passes, evicts at a clear one
 *
 *   extents:  | slab c=3 | free | large extent | slab c=17 | ... |     allocator FULL for a request of r bytes:
 *                        [ eviction window: a run of pages >= r  ]    1. hand: unreferenced slots whose extent
 *                                                                        canReuse(r), up to EVICT_BATCH
 *                                                                     2. none: every live extent in the window
 * </pre>
 *
 * <ul>
 *   <li><b>Reference bits.</b> A slot's bit is set when the server touches the entry: it is published (insert,
 *       update) or served by an RPC GET ({@link #touch}). One-sided GETs are invisible to the server. A cleared slot
 *       has its bit cleared.</li>
 *   <li><b>A full bucket pair</b> ({@link #victimIn}): CLOCK within the key's 16 candidate slots; the index
 *       replaces the victim by the new entry.</li>
 *   <li><b>A full allocator</b> ({@link #evictForSpace}): the hand sweeps the whole index and evicts unreferenced
 *       entries whose extents the allocator can reuse directly for the request (the same size class, or a large
 *       extent at least as long). When the pool holds no such extent (a class, or a large size, that nothing in the
 *       pool has), or the sweep found none, the allocator names an eviction window instead, a run of pages long
 *       enough for the request, and every entry with an extent in it is evicted: each extent names its key, whose
 *       two buckets hold the slot pointing at it. After the grace period the window is one free run, so the
 *       request fits.</li>
 *   <li><b>Headroom</b> ({@link #mayEvictFor}): evicted extents come back only after the grace period; while enough
 *       evicted bytes are already on their way back, evicting more would only empty the pool faster than writes
 *       need it, so a put that finds the pool full is simply not cached.</li>
 * </ul>
 * No allocation per operation.
 */
final class PoolEviction
{
    /** Entries evicted per sweep when the allocator is full. */
    static final int EVICT_BATCH = 8;

    private static final int ENTRIES_PER_BUCKET = IndexBucketFlyweight.ENTRY_COUNT;

    private final PoolIndex index;
    private final ExtentAllocator allocator;
    private final long extentsLength;
    private final long entryCount;
    private final long bucketMask;
    private final byte[] referenced;
    private final ExtentAllocator.ExtentVisitor windowEvictor = this::evictExtentAt;

    private long clockHand;
    private long keepEntry = -1;
    private long evictions;

    /**
     * Eviction for {@code index}, whose slots are {@code geometry.bucketCount() * 8} (checked by the index to fit an
     * {@code int}) and whose extents {@code allocator} holds.
     */
    PoolEviction(final PoolIndex index, final PoolGeometry geometry, final ExtentAllocator allocator)
    {
        this.index = index;
        this.allocator = allocator;
        this.extentsLength = geometry.extentsLength();
        this.entryCount = geometry.bucketCount() * ENTRIES_PER_BUCKET;
        this.bucketMask = geometry.bucketCount() - 1;
        this.referenced = new byte[(int)entryCount];
    }

    /** The entry at slot {@code at} was served (RPC GET): the hand passes it once before it can be evicted. */
    void touch(final long at)
    {
        referenced[(int)at] = 1;
    }

    /** Slot {@code at} was just stored: a new entry starts referenced, a cleared slot does not. */
    void onPublish(final long at, final long entry)
    {
        referenced[(int)at] = (byte)(entry == IndexEntry.EMPTY ? 0 : 1);
    }

    /**
     * The headroom rule: true while the bytes already evicted and still in their grace period are fewer than
     * {@code max(EVICT_BATCH x required, 1/64 of the extents range)}. Beyond that a put that finds the pool full
     * evicts nothing more and is not cached.
     */
    boolean mayEvictFor(final int required)
    {
        return allocator.retiredBytes() < Math.max((long)required * EVICT_BATCH, extentsLength >>> 6);
    }

    /**
     * CLOCK within the 16 slots of a full bucket pair: the first unreferenced slot, clearing bits on the way.
     * Counted as an eviction: the caller must supersede the slot returned.
     */
    long victimIn(final long primary, final long secondary)
    {
        evictions++;
        final long base1 = (primary & bucketMask) * ENTRIES_PER_BUCKET;
        final long base2 = (secondary & bucketMask) * ENTRIES_PER_BUCKET;
        for (int pass = 0; pass < 2; pass++)
        {
            for (int i = 0; i < 2 * ENTRIES_PER_BUCKET; i++)
            {
                final long s = i < ENTRIES_PER_BUCKET ? base1 + i : base2 + i - ENTRIES_PER_BUCKET;
                if (referenced[(int)s] == 0)
                {
                    return s;
                }
                referenced[(int)s] = 0;
            }
        }
        return base1;
    }

    /**
     * The allocator is full for {@code required} bytes: sweep the CLOCK hand and evict up to {@link #EVICT_BATCH}
     * unreferenced entries whose extents can be reused directly for {@code required} (two turns at most: the first
     * may only clear reference bits), never the slot {@code keep} (the key being updated; -1 for none). If the pool
     * has no such extent, or the sweep found none, evict an eviction window instead. Evicted extents become
     * reusable after the grace period, so this put may still be NOT_CACHED; later ones fit. The caller has cleared
     * COMPLETE already.
     */
    void evictForSpace(final int required, final long keep)
    {
        int evicted = 0;
        final long steps = allocator.liveExtentsLike(required) > 0 ? 2 * entryCount : 0;
        for (long step = 0; step < steps && evicted < EVICT_BATCH; step++)
        {
            final long s = clockHand;
            clockHand = clockHand + 1 == entryCount ? 0 : clockHand + 1;
            if (s == keep)
            {
                continue;
            }
            final long entry = index.entryValue(s);
            if (entry == IndexEntry.EMPTY)
            {
                continue;
            }
            if (referenced[(int)s] != 0)
            {
                referenced[(int)s] = 0;
                continue;
            }
            if (!allocator.canReuse(IndexEntry.extentLength(entry), required))
            {
                continue;
            }
            index.clearEntry(s);
            evictions++;
            evicted++;
        }
        if (evicted == 0)
        {
            keepEntry = keep;
            allocator.visitEvictionWindow(required, windowEvictor);
            keepEntry = -1;
        }
    }

    /** Entries evicted so far (by either rule, and victims of full bucket pairs). */
    long evictions()
    {
        return evictions;
    }

    /** Evict the entry whose live extent is at {@code offset} (an eviction window's extent), unless it is kept. */
    private void evictExtentAt(final long offset, final int heldBytes)
    {
        final long at = index.entryOfExtent(offset, heldBytes);
        if (at != keepEntry)
        {
            index.clearEntry(at);
            evictions++;
        }
    }
}

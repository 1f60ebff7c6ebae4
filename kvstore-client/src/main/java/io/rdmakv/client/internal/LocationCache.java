package io.rdmakv.client.internal;

import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.PoolGeometry;
import org.agrona.BitUtil;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Where this client last saw keys' values in ONE node's pool (one cache per {@link NodeSession}): key hash -&gt;
 * (index slot, version). A GET of a remembered key reads the extent alone, one read instead of buckets + extent, and
 * accepts it only if {@link io.rdmakv.protocol.layout.ValueExtentFlyweight#verifyCurrent} says the extent is intact,
 * of that key and version, and still LIVE; anything else drops the entry. An entry is therefore a hint, never trusted:
 * a wrong one (another key with the same 64-bit hash, an extent since reused, a node restarted) costs a read, never a
 * wrong answer.
 *
 * <pre>
 *   entries: long[sets x WAYS x 4], WAYS = 8 entries per set (one 256-byte run), set = f(key hash)
 *   +-----------------------------+-----------------------------+-----------------------------+-----------------+
 *   | stamp (even: stable,        | key hash (u64)              | index slot (u64, 0 = empty) | version (u64)   |
 *   |        odd: being written)  |                             | fp | length/64 | offset/64  |                 |
 *   +-----------------------------+-----------------------------+-----------------------------+-----------------+
 * </pre>
 *
 * <p>Threads: {@link #lookup} from any thread (callers start GETs on their own threads); mutations from any thread
 * too (the progress thread learns from answers and verified reads; a caller whose reads completed on return, on shm,
 * learns from its own). Writers of one set take turns on the set's writer flag (a compare-and-set held for the few
 * stores of one entry, then released), so each set keeps the single-writer logic: a newer version is never
 * overwritten by an older one, a key has at most one entry. Each entry is a seqlock for the lock-free readers: the
 * writer makes the stamp odd, writes the fields, then makes it even again with a release store; a reader takes the
 * fields only when it saw the same even stamp before (acquire) and after (behind a load fence) reading them. No
 * allocation on either side. A set's victim is chosen round robin (state under the set's flag).
 *
 * <p>Bounded: {@code capacity} entries (rounded up to a power of two, at least {@link #WAYS}), 32 bytes each, per
 * node. Capacity 0 turns the cache off: {@link #lookup} always misses and nothing is remembered.
 */
final class LocationCache
{
    /** Eight ways: at the default 100k keys in 131,072 entries about 6% of keys find their set full, 11% with four. */
    static final int WAYS = 8;
    private static final int LONGS_PER_ENTRY = 4;
    private static final int HASH = 1;
    private static final int INDEX_ENTRY = 2;
    private static final int VERSION = 3;
    private static final long MIX = 0x9E37_79B9_7F4A_7C15L;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final VarHandle INTS = MethodHandles.arrayElementVarHandle(int[].class);
    /** A writer waiting for a set's flag spins this often before it yields (the flag is held for a few stores). */
    private static final int SPINS_BEFORE_YIELD = 64;

    private final long[] entries;
    /** Per set: 1 while a writer changes it. */
    private final int[] writing;
    private final byte[] nextVictim;
    private final int setMask;
    private final PoolGeometry geometry;
    private final int maxExtentLength;

    /**
     * @param capacity        entries to keep (0 = off); rounded up to a power of two.
     * @param geometry        the node's pool: a location outside its extents range is never remembered.
     * @param maxExtentLength largest extent a GET can read into its buffer; larger ones are not worth remembering.
     */
    LocationCache(final int capacity, final PoolGeometry geometry, final int maxExtentLength)
    {
        if (capacity < 0)
        {
            throw new IllegalArgumentException("location cache capacity must be >= 0, got " + capacity);
        }
        if (capacity > KvClientBuilder.MAX_LOCATION_CACHE_ENTRIES)
        {
            // The set index takes 24 bits of the mixed hash; 2^24 entries are 512 MiB per node.
            throw new IllegalArgumentException("location cache capacity must be <= " +
                KvClientBuilder.MAX_LOCATION_CACHE_ENTRIES + ", got " + capacity);
        }
        final int sets = capacity == 0 ? 0 : BitUtil.findNextPositivePowerOfTwo(Math.max(WAYS, capacity)) / WAYS;
        this.entries = new long[sets * WAYS * LONGS_PER_ENTRY];
        this.nextVictim = new byte[sets];
        this.writing = new int[sets];
        this.setMask = sets - 1;
        this.geometry = geometry;
        this.maxExtentLength = maxExtentLength;
    }

    /** False when the cache was configured off. */
    boolean enabled()
    {
        return setMask >= 0;
    }

    /** Entries it can hold. */
    int capacity()
    {
        return nextVictim.length * WAYS;
    }

    /**
     * The remembered location of the key with {@code hash}, written into {@code into}'s
     * {@link RequestSlot#followedEntry} and {@link RequestSlot#expectedVersion}. Any thread; no allocation.
     *
     * @return true when an entry was found (stable while it was read).
     */
    boolean lookup(final long hash, final RequestSlot into)
    {
        if (setMask < 0)
        {
            return false;
        }
        final int base = setOf(hash) * WAYS * LONGS_PER_ENTRY;
        for (int way = 0; way < WAYS; way++)
        {
            final int at = base + way * LONGS_PER_ENTRY;
            final long stamp = (long)LONGS.getAcquire(entries, at);
            if ((stamp & 1) != 0 || (long)LONGS.getOpaque(entries, at + HASH) != hash)
            {
                continue;
            }
            final long entry = (long)LONGS.getOpaque(entries, at + INDEX_ENTRY);
            final long version = (long)LONGS.getOpaque(entries, at + VERSION);
            VarHandle.loadLoadFence();
            if ((long)LONGS.getOpaque(entries, at) != stamp || entry == IndexEntry.EMPTY)
            {
                continue; // being rewritten (or just cleared): treat as a miss, the full protocol is always right
            }
            into.followedEntry = entry;
            into.expectedVersion = version;
            return true;
        }
        return false;
    }

    /**
     * Remember that the key with {@code hash} has {@code version} at {@code indexEntry}. Any thread. A
     * location that does not fit the pool or the read buffer, or whose fingerprint is not the key's, is refused; an
     * entry already holding a newer version of the key is kept (versions only grow within a pool's life).
     *
     * @return true when remembered.
     */
    boolean remember(final long hash, final long indexEntry, final long version)
    {
        if (setMask < 0 || !IndexEntry.isValid(indexEntry, geometry) ||
            IndexEntry.fingerprint(indexEntry) != KeyHash.fingerprint(hash) ||
            IndexEntry.extentLength(indexEntry) > maxExtentLength)
        {
            return false;
        }
        final int set = setOf(hash);
        lockSet(set);
        try
        {
            return rememberLocked(set, hash, indexEntry, version);
        }
        finally
        {
            unlockSet(set);
        }
    }

    private boolean rememberLocked(final int set, final long hash, final long indexEntry, final long version)
    {
        final int base = set * WAYS * LONGS_PER_ENTRY;
        int empty = -1;
        for (int way = 0; way < WAYS; way++)
        {
            final int at = base + way * LONGS_PER_ENTRY;
            if (entries[at + INDEX_ENTRY] == IndexEntry.EMPTY)
            {
                empty = empty < 0 ? at : empty;
            }
            else if (entries[at + HASH] == hash)
            {
                if (entries[at + VERSION] - version > 0)
                {
                    return false; // an answer overtaken by a newer write of this client
                }
                write(at, hash, indexEntry, version);
                return true;
            }
        }
        if (empty < 0)
        {
            final int victim = nextVictim[set];
            nextVictim[set] = (byte)((victim + 1) & (WAYS - 1));
            empty = base + victim * LONGS_PER_ENTRY;
        }
        write(empty, hash, indexEntry, version);
        return true;
    }

    /**
     * Drop the entry of {@code hash} if it still holds {@code indexEntry} (a newer location remembered meanwhile is
     * kept). Any thread.
     *
     * @return true when an entry was dropped.
     */
    boolean forget(final long hash, final long indexEntry)
    {
        return drop(hash, indexEntry, true);
    }

    /** Drop the entry of {@code hash}, whatever it holds (this client deleted the key). Any thread. */
    boolean forget(final long hash)
    {
        return drop(hash, IndexEntry.EMPTY, false);
    }

    private boolean drop(final long hash, final long indexEntry, final boolean onlyThatEntry)
    {
        if (setMask < 0)
        {
            return false;
        }
        final int set = setOf(hash);
        lockSet(set);
        try
        {
            final int at = find(set, hash);
            if (at < 0 || (onlyThatEntry && entries[at + INDEX_ENTRY] != indexEntry))
            {
                return false;
            }
            write(at, 0, IndexEntry.EMPTY, 0);
            return true;
        }
        finally
        {
            unlockSet(set);
        }
    }

    /** Under the set's flag: where the entry of {@code hash} is, or -1. */
    private int find(final int set, final long hash)
    {
        final int base = set * WAYS * LONGS_PER_ENTRY;
        for (int way = 0; way < WAYS; way++)
        {
            final int at = base + way * LONGS_PER_ENTRY;
            if (entries[at + INDEX_ENTRY] != IndexEntry.EMPTY && entries[at + HASH] == hash)
            {
                return at;
            }
        }
        return -1;
    }

    /** The seqlock write: odd stamp, fields, even stamp (release). Under the set's flag: one writer at a time. */
    private void write(final int at, final long hash, final long indexEntry, final long version)
    {
        final long stamp = entries[at];
        LONGS.setOpaque(entries, at, stamp + 1);
        VarHandle.storeStoreFence();
        LONGS.setOpaque(entries, at + HASH, hash);
        LONGS.setOpaque(entries, at + INDEX_ENTRY, indexEntry);
        LONGS.setOpaque(entries, at + VERSION, version);
        LONGS.setRelease(entries, at, stamp + 2);
    }

    /** Take the set's writer flag (acquire): spin, then yield, while another writer holds it. */
    private void lockSet(final int set)
    {
        int spins = 0;
        while (!INTS.compareAndSet(writing, set, 0, 1))
        {
            if (++spins < SPINS_BEFORE_YIELD)
            {
                Thread.onSpinWait();
            }
            else
            {
                Thread.yield();
            }
        }
    }

    private void unlockSet(final int set)
    {
        INTS.setRelease(writing, set, 0);
    }

    /** Buckets take the key hash's low bits; the sets take the high bits of a multiplicative mix of all of it. */
    private int setOf(final long hash)
    {
        return (int)((hash * MIX) >>> 40) & setMask;
    }
}

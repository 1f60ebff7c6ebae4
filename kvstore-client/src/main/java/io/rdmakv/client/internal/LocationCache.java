package io.rdmakv.client.internal;

import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.protocol.layout.IndexSlot;
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
 * <p>Threads: {@link #lookup} from any thread (callers start GETs on their own threads); every mutation from ONE
 * thread, the client's progress thread, which sees every verified read and every write's answer. Each entry is a
 * seqlock: the writer makes the stamp odd, writes the fields, then makes it even again with a release store; a reader
 * takes the fields only when it saw the same even stamp before (acquire) and after (behind a load fence) reading
 * them. No locks and no allocation on either side. A set's victim is chosen round robin (writer-only state).
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
    private static final int SLOT = 2;
    private static final int VERSION = 3;
    private static final long MIX = 0x9E37_79B9_7F4A_7C15L;
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] entries;
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
     * {@link RequestSlot#followedSlot} and {@link RequestSlot#expectedVersion}. Any thread; no allocation.
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
            final long slot = (long)LONGS.getOpaque(entries, at + SLOT);
            final long version = (long)LONGS.getOpaque(entries, at + VERSION);
            VarHandle.loadLoadFence();
            if ((long)LONGS.getOpaque(entries, at) != stamp || slot == IndexSlot.EMPTY)
            {
                continue; // being rewritten (or just cleared): treat as a miss, the full protocol is always right
            }
            into.followedSlot = slot;
            into.expectedVersion = version;
            return true;
        }
        return false;
    }

    /**
     * Remember that the key with {@code hash} has {@code version} at {@code indexSlot}. Progress thread only. A
     * location that does not fit the pool or the read buffer, or whose fingerprint is not the key's, is refused; an
     * entry already holding a newer version of the key is kept (versions only grow within a pool's life).
     *
     * @return true when remembered.
     */
    boolean remember(final long hash, final long indexSlot, final long version)
    {
        if (setMask < 0 || !IndexSlot.isValid(indexSlot, geometry) ||
            IndexSlot.fingerprint(indexSlot) != KeyHash.fingerprint(hash) ||
            IndexSlot.extentLength(indexSlot) > maxExtentLength)
        {
            return false;
        }
        final int set = setOf(hash);
        final int base = set * WAYS * LONGS_PER_ENTRY;
        int empty = -1;
        for (int way = 0; way < WAYS; way++)
        {
            final int at = base + way * LONGS_PER_ENTRY;
            if (entries[at + SLOT] == IndexSlot.EMPTY)
            {
                empty = empty < 0 ? at : empty;
            }
            else if (entries[at + HASH] == hash)
            {
                if (entries[at + VERSION] - version > 0)
                {
                    return false; // an answer overtaken by a newer write of this client
                }
                write(at, hash, indexSlot, version);
                return true;
            }
        }
        if (empty < 0)
        {
            final int victim = nextVictim[set];
            nextVictim[set] = (byte)((victim + 1) & (WAYS - 1));
            empty = base + victim * LONGS_PER_ENTRY;
        }
        write(empty, hash, indexSlot, version);
        return true;
    }

    /**
     * Drop the entry of {@code hash} if it still holds {@code indexSlot} (a newer location remembered meanwhile is
     * kept). Progress thread only.
     *
     * @return true when an entry was dropped.
     */
    boolean forget(final long hash, final long indexSlot)
    {
        final int at = find(hash);
        if (at < 0 || entries[at + SLOT] != indexSlot)
        {
            return false;
        }
        write(at, 0, IndexSlot.EMPTY, 0);
        return true;
    }

    /** Drop the entry of {@code hash}, whatever it holds (this client deleted the key). Progress thread only. */
    boolean forget(final long hash)
    {
        final int at = find(hash);
        if (at < 0)
        {
            return false;
        }
        write(at, 0, IndexSlot.EMPTY, 0);
        return true;
    }

    private int find(final long hash)
    {
        if (setMask < 0)
        {
            return -1;
        }
        final int base = setOf(hash) * WAYS * LONGS_PER_ENTRY;
        for (int way = 0; way < WAYS; way++)
        {
            final int at = base + way * LONGS_PER_ENTRY;
            if (entries[at + SLOT] != IndexSlot.EMPTY && entries[at + HASH] == hash)
            {
                return at;
            }
        }
        return -1;
    }

    /** The seqlock write: odd stamp, fields, even stamp (release). The only writer is the progress thread. */
    private void write(final int at, final long hash, final long indexSlot, final long version)
    {
        final long stamp = entries[at];
        LONGS.setOpaque(entries, at, stamp + 1);
        VarHandle.storeStoreFence();
        LONGS.setOpaque(entries, at + HASH, hash);
        LONGS.setOpaque(entries, at + SLOT, indexSlot);
        LONGS.setOpaque(entries, at + VERSION, version);
        LONGS.setRelease(entries, at, stamp + 2);
    }

    /** Buckets take the key hash's low bits; the sets take the high bits of a multiplicative mix of all of it. */
    private int setOf(final long hash)
    {
        return (int)((hash * MIX) >>> 40) & setMask;
    }
}

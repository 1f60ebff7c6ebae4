package io.rdmakv.server.resp;

import io.rdmakv.protocol.ProtocolLimits;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * SCAN's cursors: Redis's cursor is one unsigned 64-bit number (redis-py parses it with {@code int()}, redis-cli with
 * {@code strtoull}), while a node resumes a key scan from a hash slot and the last key it returned of it (the native
 * scan's resume point, {@link io.rdmakv.protocol.wire.KeyScanPage}). The hash slot travels in the cursor itself; the
 * key, of any length, stays here, in a bounded table, named by a random number in the cursor:
 *
 * <pre>
 *   bit 63    62 ........ 48   47 ..................... 0
 *      0     hash slot + 1     entry id (0: the slot's start)
 *   cursor 0: the start of a scan (hash slot 0), and in a reply its end
 * </pre>
 *
 * The table keeps the {@value #CAPACITY} entries used last (at most that many keys of {@code limits.maxKeyBytes}); a
 * cursor whose entry is unknown (evicted, issued by another node or before a restart) resumes at the start of its
 * hash slot: the keys of that slot already returned are returned again, which Redis allows (an element may be returned
 * more than once), and no key present throughout the scan is missed. Entry ids are random, so a cursor of another
 * node names an entry here only by a 1 in 2^48 chance, and then one of the same hash slot. Thread-safe: connections of
 * several event loops scan through one table.
 */
final class ScanCursors
{
    /** Entries kept: one per call of a scan in progress (an entry is kept after use: a retried call still works). */
    static final int CAPACITY = 10_000;
    private static final int SLOT_SHIFT = 48;
    private static final long ID_MASK = (1L << SLOT_SHIFT) - 1;

    /** Where a cursor resumes: the hash slot, and the last key returned of it (empty: none yet). */
    record Position(int hashSlot, byte[] afterKey)
    {
    }

    private record Entry(int hashSlot, byte[] key)
    {
    }

    private final int capacity;
    private final Map<Long, Entry> entries;
    private long unknown;

    ScanCursors()
    {
        this(CAPACITY);
    }

    ScanCursors(final int capacity)
    {
        this.capacity = capacity;
        this.entries = new LinkedHashMap<>(16, 0.75f, true)
        {
            @Override
            protected boolean removeEldestEntry(final Map.Entry<Long, ScanCursors.Entry> eldest)
            {
                return size() > ScanCursors.this.capacity;
            }
        };
    }

    /**
     * The position {@code cursor} names, or null when it is no cursor of this form (the slot part 0 or beyond the
     * last hash slot: Redis's "invalid cursor").
     */
    synchronized Position resume(final long cursor)
    {
        if (cursor == 0)
        {
            return new Position(0, new byte[0]);
        }
        final long slotPart = cursor >>> SLOT_SHIFT;
        if (slotPart < 1 || slotPart > ProtocolLimits.HASH_SLOT_COUNT)
        {
            return null;
        }
        final int hashSlot = (int)slotPart - 1;
        final long id = cursor & ID_MASK;
        if (id == 0)
        {
            return new Position(hashSlot, new byte[0]);
        }
        final Entry e = entries.get(id);
        if (e == null || e.hashSlot() != hashSlot)
        {
            unknown++;
            return new Position(hashSlot, new byte[0]); // from the slot's start again: duplicates, nothing missed
        }
        return new Position(hashSlot, e.key());
    }

    /**
     * The cursor that resumes after {@code key} of hash slot {@code slot} ({@code key} empty: at the slot's start);
     * {@code slot} 16384 (past the last) is the end: 0.
     */
    synchronized long cursor(final int hashSlot, final byte[] key)
    {
        if (hashSlot >= ProtocolLimits.HASH_SLOT_COUNT)
        {
            return 0;
        }
        final long slotPart = (long)(hashSlot + 1) << SLOT_SHIFT;
        if (key.length == 0)
        {
            return slotPart;
        }
        long id;
        do
        {
            id = ThreadLocalRandom.current().nextLong() & ID_MASK;
        }
        while (id == 0 || entries.containsKey(id));
        entries.put(id, new Entry(hashSlot, key));
        return slotPart | id;
    }

    /** Entries held now. */
    synchronized int size()
    {
        return entries.size();
    }

    /** Cursors that named no entry here (evicted, or of another node), since the start. */
    synchronized long unknown()
    {
        return unknown;
    }
}

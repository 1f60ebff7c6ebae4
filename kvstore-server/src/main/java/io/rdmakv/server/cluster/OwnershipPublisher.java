package io.rdmakv.server.cluster;

import io.rdmakv.protocol.layout.SlotOwnershipTable;
import io.rdmakv.pool.ArenaPartitions;

import java.util.function.IntPredicate;

/**
 * Writes this node's slot ownership words ({@link SlotOwnershipTable}) into its registered pool, so one-sided readers
 * can tell, in the same batch as their bucket reads, whether the node still serves a slot: LIVE or MIGRATING for the
 * ranges it is primary of, at the range's epoch; FENCED for every range it gave up. The pool starts with the table
 * zeroed (NOT_OWNER): nothing is served one-sided before the first {@link #apply} or {@link #publishStatic}.
 *
 * <p>Callers: {@link #apply} from the {@link ClusterView} listener on every committed state; {@link #fence} by the
 * node before it reports a range given up (the resharding cut-over: the words must say FENCED before the coordinator
 * can commit the new owner); {@link #fenceAll} when the node's lease ran out while it still runs. Each word is one
 * release store; calls are serialised here, so any thread may make them.
 */
public final class OwnershipPublisher
{
    private final ArenaPartitions pool;
    private final int localNodeId;
    /** Set before the pool is unmapped: a view's listener that outlives the node must not touch it. */
    private boolean closed;

    /**
     * @param pool        the pool's partitions (offset 0 is the pool header; the table follows it).
     * @param localNodeId this node's id.
     */
    public OwnershipPublisher(final ArenaPartitions pool, final int localNodeId)
    {
        if (pool.size() < SlotOwnershipTable.OFFSET + SlotOwnershipTable.LENGTH)
        {
            throw new IllegalArgumentException("pool of " + pool.size() + " bytes has no room for the slot ownership table");
        }
        this.pool = pool;
        this.localNodeId = localNodeId;
    }

    /** Zero the table (NOT_OWNER everywhere), partition by partition. */
    public static void clear(final ArenaPartitions pool)
    {
        final long end = SlotOwnershipTable.OFFSET + SlotOwnershipTable.LENGTH;
        for (long off = SlotOwnershipTable.OFFSET; off < end; )
        {
            final int at = pool.partitionOffset(off);
            final int length = (int)Math.min(end - off, (long)pool.partitionSize() - at);
            pool.bufferFor(off).setMemory(at, length, (byte)0);
            off += length;
        }
    }

    /** Publish {@code state}: this node's ranges by their state and epoch, every other range FENCED where it was ours. */
    public synchronized void apply(final ClusterState state)
    {
        if (closed)
        {
            return;
        }
        for (final SlotRange range : state.ranges())
        {
            if (range.primary() == localNodeId)
            {
                publish(range.firstSlot(), range.lastSlot(), stateOf(range.state()), range.epoch());
            }
            else
            {
                fenceOwned(range.firstSlot(), range.lastSlot(), range.epoch());
            }
        }
    }

    /**
     * Follow {@code view}: publish its current state now and every newer one as it is committed. (The lease check
     * that fences everything when the node lease runs out while the node still runs is the caller's: {@link #fenceAll}.)
     */
    public void follow(final ClusterView view)
    {
        view.subscribe(this::apply);
        apply(view.current());
    }

    /** A fixed map with no coordinator: LIVE at {@code epoch} where {@code isLocal}, NOT_OWNER elsewhere. */
    public synchronized void publishStatic(final IntPredicate isLocal, final long epoch)
    {
        for (int hashSlot = 0; hashSlot < SlotOwnershipTable.WORD_COUNT; hashSlot++)
        {
            put(hashSlot, isLocal.test(hashSlot) ? SlotOwnershipTable.STATE_LIVE : SlotOwnershipTable.STATE_NOT_OWNER, epoch);
        }
    }

    /** Fence {@code [firstSlot, lastSlot]} at {@code epoch}: one-sided readers stop trusting this node's pool for it. */
    public synchronized void fence(final int firstSlot, final int lastSlot, final long epoch)
    {
        publish(firstSlot, lastSlot, SlotOwnershipTable.STATE_FENCED, epoch);
    }

    /** Fence every slot this node serves (its lease ran out while it runs), each at its current epoch. */
    public synchronized void fenceAll()
    {
        if (closed)
        {
            return;
        }
        for (int hashSlot = 0; hashSlot < SlotOwnershipTable.WORD_COUNT; hashSlot++)
        {
            final long word = word(hashSlot);
            final int s = SlotOwnershipTable.state(word);
            if (s == SlotOwnershipTable.STATE_LIVE || s == SlotOwnershipTable.STATE_MIGRATING)
            {
                put(hashSlot, SlotOwnershipTable.STATE_FENCED, SlotOwnershipTable.epoch(word));
            }
        }
    }

    /** The node is closing: publish nothing more (the pool is unmapped next). */
    public synchronized void close()
    {
        closed = true;
    }

    /** The word of {@code hashSlot} as published (tests, status). */
    public long word(final int hashSlot)
    {
        final long off = SlotOwnershipTable.poolOffsetOf(hashSlot);
        return SlotOwnershipTable.wordAt(pool.bufferFor(off), pool.partitionOffset(off));
    }

    private void put(final int hashSlot, final int state, final long epoch)
    {
        final long off = SlotOwnershipTable.poolOffsetOf(hashSlot);
        SlotOwnershipTable.publishAt(pool.bufferFor(off), pool.partitionOffset(off),
            SlotOwnershipTable.encode(hashSlot, state, epoch));
    }

    private void fenceOwned(final int firstSlot, final int lastSlot, final long epoch)
    {
        for (int hashSlot = firstSlot; hashSlot <= lastSlot; hashSlot++)
        {
            if (SlotOwnershipTable.state(word(hashSlot)) != SlotOwnershipTable.STATE_NOT_OWNER)
            {
                put(hashSlot, SlotOwnershipTable.STATE_FENCED, epoch);
            }
        }
    }

    private void publish(final int firstSlot, final int lastSlot, final int state, final long epoch)
    {
        for (int hashSlot = firstSlot; hashSlot <= lastSlot; hashSlot++)
        {
            put(hashSlot, state, epoch);
        }
    }

    private static int stateOf(final SlotRange.State state)
    {
        return switch (state)
        {
            case LIVE -> SlotOwnershipTable.STATE_LIVE;
            case MIGRATING -> SlotOwnershipTable.STATE_MIGRATING;
            case FENCED -> SlotOwnershipTable.STATE_FENCED;
        };
    }
}

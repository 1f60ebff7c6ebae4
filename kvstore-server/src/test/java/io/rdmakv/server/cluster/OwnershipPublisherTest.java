package io.rdmakv.server.cluster;

import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.SlotOwnershipTable;
import io.rdmakv.pool.ArenaPartitions;
import org.agrona.BufferUtil;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class OwnershipPublisherTest
{
    private static final ClusterMember A = new ClusterMember(1, "a", 1, 2);
    private static final ClusterMember B = new ClusterMember(2, "b", 1, 2);

    // Small partitions, so the table spans several (as a pool with 64 KiB partitions does).
    private final ByteBuffer memory = ByteBuffer.allocateDirect((int)PoolGeometry.MIN_INDEX_OFFSET);
    private final ArenaPartitions pool = new ArenaPartitions(BufferUtil.address(memory), memory.capacity(), 64 * 1024);
    private final OwnershipPublisher publisher = new OwnershipPublisher(pool, 1);

    @Test
    void shouldPublishOwnRangesByStateAndEpochAndLeaveOthersNotOwned()
    {
        publisher.apply(state(1, range(0, 99, 3, 1, SlotRange.State.LIVE), range(100, 199, 4, 1, SlotRange.State.MIGRATING),
            range(200, 16383, 5, 2, SlotRange.State.LIVE)));
        assertWord(0, SlotOwnershipTable.STATE_LIVE, 3);
        assertWord(99, SlotOwnershipTable.STATE_LIVE, 3);
        assertWord(150, SlotOwnershipTable.STATE_MIGRATING, 4);
        assertWord(200, SlotOwnershipTable.STATE_NOT_OWNER, 0);
        assertEquals(0L, publisher.word(16383));
    }

    @Test
    void shouldFenceARangeGivenUpAtItsNewEpoch()
    {
        publisher.apply(state(1, range(0, 99, 3, 1, SlotRange.State.LIVE), range(100, 16383, 3, 2, SlotRange.State.LIVE)));
        publisher.apply(state(2, range(0, 99, 4, 2, SlotRange.State.LIVE), range(100, 16383, 3, 2, SlotRange.State.LIVE)));
        assertWord(42, SlotOwnershipTable.STATE_FENCED, 4);
        assertWord(100, SlotOwnershipTable.STATE_NOT_OWNER, 0);
    }

    @Test
    void shouldFenceBeforeTheCutOverAndFenceAllOnALostLease()
    {
        publisher.apply(state(1, range(0, 99, 3, 1, SlotRange.State.MIGRATING), range(100, 16383, 2, 1, SlotRange.State.LIVE)));
        publisher.fence(0, 99, 3);
        assertWord(7, SlotOwnershipTable.STATE_FENCED, 3);
        assertWord(100, SlotOwnershipTable.STATE_LIVE, 2);
        publisher.fenceAll();
        assertWord(100, SlotOwnershipTable.STATE_FENCED, 2);
        assertWord(16383, SlotOwnershipTable.STATE_FENCED, 2);
    }

    @Test
    void shouldPublishAFollowedViewAtOnce()
    {
        publisher.follow(StaticClusterView.singleNode(A));
        assertWord(0, SlotOwnershipTable.STATE_LIVE, 1);
        assertWord(16383, SlotOwnershipTable.STATE_LIVE, 1);
    }

    @Test
    void shouldPublishAStaticMapLiveWhereLocalAndClearToNotOwner()
    {
        publisher.publishStatic(hashSlot -> hashSlot < 10 || hashSlot == 16383, 1);
        assertWord(9, SlotOwnershipTable.STATE_LIVE, 1);
        assertWord(10, SlotOwnershipTable.STATE_NOT_OWNER, 1);
        assertWord(16383, SlotOwnershipTable.STATE_LIVE, 1);
        OwnershipPublisher.clear(pool);
        assertEquals(0L, publisher.word(9));
        assertEquals(0L, publisher.word(16383));
    }

    private void assertWord(final int hashSlot, final int state, final long epoch)
    {
        final long w = publisher.word(hashSlot);
        assertEquals(state, SlotOwnershipTable.state(w), SlotOwnershipTable.describe(w));
        if (state != SlotOwnershipTable.STATE_NOT_OWNER || epoch != 0)
        {
            assertEquals(hashSlot, SlotOwnershipTable.hashSlot(w));
            assertEquals(epoch, SlotOwnershipTable.epoch(w));
        }
    }

    private static ClusterState state(final long epoch, final SlotRange... ranges)
    {
        return new ClusterState(epoch, List.of(A, B), List.of(ranges));
    }

    private static SlotRange range(final int first, final int last, final long epoch, final int primary,
        final SlotRange.State state)
    {
        return new SlotRange(first, last, epoch, primary, List.of(), List.of(), state);
    }
}

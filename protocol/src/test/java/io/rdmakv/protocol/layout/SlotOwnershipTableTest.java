package io.rdmakv.protocol.layout;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlotOwnershipTableTest
{
    private final UnsafeBuffer pool = new UnsafeBuffer(ByteBuffer.allocateDirect((int)PoolGeometry.MIN_INDEX_OFFSET));

    @Test
    void shouldRoundTripEveryFieldAtTheEdges()
    {
        for (final int hashSlot : new int[] {0, 1, 8191, 16383})
        {
            for (int state = 0; state <= 3; state++)
            {
                for (final long epoch : new long[] {0, 1, 1L << 32, SlotOwnershipTable.MAX_EPOCH})
                {
                    final long w = SlotOwnershipTable.encode(hashSlot, state, epoch);
                    assertEquals(hashSlot, SlotOwnershipTable.hashSlot(w));
                    assertEquals(state, SlotOwnershipTable.state(w));
                    assertEquals(epoch, SlotOwnershipTable.epoch(w));
                }
            }
        }
        assertThrows(IllegalArgumentException.class, () -> SlotOwnershipTable.encode(16384, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> SlotOwnershipTable.encode(0, 4, 1));
        assertThrows(IllegalArgumentException.class, () -> SlotOwnershipTable.encode(0, 1, 1L << 48));
    }

    @Test
    void shouldPublishAtTheDrawnOffsetLittleEndian()
    {
        final int at = (int)SlotOwnershipTable.poolOffsetOf(5);
        SlotOwnershipTable.publishAt(pool, at, SlotOwnershipTable.encode(5, SlotOwnershipTable.STATE_LIVE, 7));
        assertEquals(4096 + 40, at);
        assertEquals(7L << 16 | 5 << 2 | 1, SlotOwnershipTable.readWord(pool, at));
        assertEquals(SlotOwnershipTable.readWord(pool, at), SlotOwnershipTable.wordAt(pool, at));
        assertEquals("LIVE(slot 5, epoch 7)", SlotOwnershipTable.describe(SlotOwnershipTable.wordAt(pool, at)));
        assertEquals(SlotOwnershipTable.OFFSET + SlotOwnershipTable.LENGTH, PoolGeometry.MIN_INDEX_OFFSET);
    }

    @Test
    void shouldServeOnlyLiveOrMigratingWordsOfTheHashSlotAtTheMapsEpochOrNewer()
    {
        assertTrue(SlotOwnershipTable.serves(SlotOwnershipTable.encode(9, SlotOwnershipTable.STATE_LIVE, 4), 9, 4));
        assertTrue(SlotOwnershipTable.serves(SlotOwnershipTable.encode(9, SlotOwnershipTable.STATE_LIVE, 5), 9, 4),
            "a newer epoch than the reader's map: the node owns it since");
        assertTrue(SlotOwnershipTable.serves(SlotOwnershipTable.encode(9, SlotOwnershipTable.STATE_MIGRATING, 4), 9, 4));
        assertFalse(SlotOwnershipTable.serves(SlotOwnershipTable.encode(9, SlotOwnershipTable.STATE_LIVE, 3), 9, 4),
            "older than the reader's map");
        assertFalse(SlotOwnershipTable.serves(SlotOwnershipTable.encode(9, SlotOwnershipTable.STATE_FENCED, 4), 9, 4));
        assertFalse(SlotOwnershipTable.serves(SlotOwnershipTable.encode(9, SlotOwnershipTable.STATE_NOT_OWNER, 4), 9, 4));
        assertFalse(SlotOwnershipTable.serves(SlotOwnershipTable.encode(8, SlotOwnershipTable.STATE_LIVE, 4), 9, 4),
            "another slot's word");
        assertFalse(SlotOwnershipTable.serves(0L, 0, 0), "the zeroed table serves nothing");
    }
}

package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IndexSlotTest
{
    @Test
    void shouldRoundTripEdgeValues()
    {
        final int[] fingerprints = {1, 2, 0x7FFF, 0x8000, 0xFFFF};
        final long[] offsets = {0, 64, 4096, (1L << 32) * 64, IndexSlot.MAX_EXTENT_OFFSET};
        final int[] lengths = {64, 128, 1 << 20, IndexSlot.MAX_EXTENT_LENGTH};
        for (final int fp : fingerprints)
        {
            for (final long offset : offsets)
            {
                for (final int length : lengths)
                {
                    final long slot = IndexSlot.encode(fp, offset, length);
                    assertNotEquals(IndexSlot.EMPTY, slot);
                    assertEquals(fp, IndexSlot.fingerprint(slot));
                    assertEquals(offset, IndexSlot.extentOffset(slot));
                    assertEquals(length, IndexSlot.extentLength(slot));
                }
            }
        }
    }

    @Test
    void shouldPlaceFieldsInTheDocumentedBits()
    {
        final long slot = IndexSlot.encode(0xABCD, 64L * 5, 64 * 3);
        assertEquals(0xABCDL << 48 | 3L << 33 | 5L, slot);
        assertEquals(0xFFFF_FFFF_FFFF_FFFFL, IndexSlot.encode(0xFFFF, IndexSlot.MAX_EXTENT_OFFSET,
            IndexSlot.MAX_EXTENT_LENGTH));
        assertEquals(2 * 1024 * 1024 - 64, IndexSlot.MAX_EXTENT_LENGTH);
        assertEquals(512L * 1024 * 1024 * 1024 - 64, IndexSlot.MAX_EXTENT_OFFSET);
    }

    @Test
    void shouldRejectOutOfRangeAndMisalignedFields()
    {
        assertBadSlot(0, 0, 64);
        assertBadSlot(0x10000, 0, 64);
        assertBadSlot(-1, 0, 64);
        assertBadSlot(1, 32, 64);
        assertBadSlot(1, -64, 64);
        assertBadSlot(1, IndexSlot.MAX_EXTENT_OFFSET + 64, 64);
        assertBadSlot(1, 0, 0);
        assertBadSlot(1, 0, 100);
        assertBadSlot(1, 0, IndexSlot.MAX_EXTENT_LENGTH + 64);
        assertBadSlot(1, 0, -64);
    }

    @Test
    void shouldValidateSlotsAgainstGeometry()
    {
        final PoolGeometry g = PoolGeometry.plan(1 << 20, 64);
        assertTrue(IndexSlot.isValid(IndexSlot.encode(7, g.extentsOffset(), 64), g));
        assertTrue(IndexSlot.isValid(IndexSlot.encode(7, g.extentsOffset() + g.extentsLength() - 128, 128), g));
        assertFalse(IndexSlot.isValid(IndexSlot.EMPTY, g));
        assertFalse(IndexSlot.isValid(IndexSlot.encode(7, 0, 64), g), "inside the header");
        assertFalse(IndexSlot.isValid(IndexSlot.encode(7, g.indexOffset(), 64), g), "inside the index");
        assertFalse(IndexSlot.isValid(IndexSlot.encode(7, g.extentsOffset() + g.extentsLength() - 64, 128), g));
        assertFalse(IndexSlot.isValid(IndexSlot.encode(7, 1L << 30, 64), g), "beyond the pool");
        assertFalse(IndexSlot.isValid(5L, g), "fingerprint 0 with a non-zero payload");
    }

    private static void assertBadSlot(final int fp, final long offset, final int length)
    {
        final ProtocolException ex = assertThrows(ProtocolException.class, () -> IndexSlot.encode(fp, offset, length));
        assertEquals(ErrorCode.BAD_SLOT, ex.errorCode());
    }
}

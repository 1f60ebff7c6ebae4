package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IndexEntryTest
{
    @Test
    void shouldRoundTripEdgeValues()
    {
        final int[] fingerprints = {1, 2, 0x7FFF, 0x8000, 0xFFFF};
        final long[] offsets = {0, 64, 4096, (1L << 32) * 64, IndexEntry.MAX_EXTENT_OFFSET};
        final int[] lengths = {64, 128, 1 << 20, IndexEntry.MAX_EXTENT_LENGTH};
        for (final int fp : fingerprints)
        {
            for (final long offset : offsets)
            {
                for (final int length : lengths)
                {
                    final long entry = IndexEntry.encode(fp, offset, length);
                    assertNotEquals(IndexEntry.EMPTY, entry);
                    assertEquals(fp, IndexEntry.fingerprint(entry));
                    assertEquals(offset, IndexEntry.extentOffset(entry));
                    assertEquals(length, IndexEntry.extentLength(entry));
                }
            }
        }
    }

    @Test
    void shouldPlaceFieldsInTheDocumentedBits()
    {
        final long entry = IndexEntry.encode(0xABCD, 64L * 5, 64 * 3);
        assertEquals(0xABCDL << 48 | 3L << 33 | 5L, entry);
        assertEquals(0xFFFF_FFFF_FFFF_FFFFL, IndexEntry.encode(0xFFFF, IndexEntry.MAX_EXTENT_OFFSET,
            IndexEntry.MAX_EXTENT_LENGTH));
        assertEquals(2 * 1024 * 1024 - 64, IndexEntry.MAX_EXTENT_LENGTH);
        assertEquals(512L * 1024 * 1024 * 1024 - 64, IndexEntry.MAX_EXTENT_OFFSET);
    }

    @Test
    void shouldRejectOutOfRangeAndMisalignedFields()
    {
        assertBadEntry(0, 0, 64);
        assertBadEntry(0x10000, 0, 64);
        assertBadEntry(-1, 0, 64);
        assertBadEntry(1, 32, 64);
        assertBadEntry(1, -64, 64);
        assertBadEntry(1, IndexEntry.MAX_EXTENT_OFFSET + 64, 64);
        assertBadEntry(1, 0, 0);
        assertBadEntry(1, 0, 100);
        assertBadEntry(1, 0, IndexEntry.MAX_EXTENT_LENGTH + 64);
        assertBadEntry(1, 0, -64);
    }

    @Test
    void shouldValidateEntriesAgainstGeometry()
    {
        final PoolGeometry g = PoolGeometry.plan(1 << 20, 64);
        assertTrue(IndexEntry.isValid(IndexEntry.encode(7, g.extentsOffset(), 64), g));
        assertTrue(IndexEntry.isValid(IndexEntry.encode(7, g.extentsOffset() + g.extentsLength() - 128, 128), g));
        assertFalse(IndexEntry.isValid(IndexEntry.EMPTY, g));
        assertFalse(IndexEntry.isValid(IndexEntry.encode(7, 0, 64), g), "inside the header");
        assertFalse(IndexEntry.isValid(IndexEntry.encode(7, g.indexOffset(), 64), g), "inside the index");
        assertFalse(IndexEntry.isValid(IndexEntry.encode(7, g.extentsOffset() + g.extentsLength() - 64, 128), g));
        assertFalse(IndexEntry.isValid(IndexEntry.encode(7, 1L << 30, 64), g), "beyond the pool");
        assertFalse(IndexEntry.isValid(5L, g), "fingerprint 0 with a non-zero payload");
    }

    private static void assertBadEntry(final int fp, final long offset, final int length)
    {
        final ProtocolException ex = assertThrows(ProtocolException.class, () -> IndexEntry.encode(fp, offset, length));
        assertEquals(ErrorCode.BAD_SLOT, ex.errorCode());
    }
}

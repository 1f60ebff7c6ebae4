package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PoolGeometryTest
{
    private static final long I = PoolGeometry.MIN_INDEX_OFFSET;

    @Test
    void shouldPlanHeaderOwnershipTableIndexAndExtentsBackToBack()
    {
        final PoolGeometry g = PoolGeometry.plan(64L << 20, 1 << 16);
        assertEquals(4096 + 16384 * 8, g.indexOffset());
        assertEquals(I, g.indexOffset());
        assertEquals(I + (1 << 16) * 64L, g.extentsOffset());
        assertEquals((64L << 20) - g.extentsOffset(), g.extentsLength());
        assertEquals(g.indexOffset() + 5 * 64, g.bucketOffset(5));
        assertEquals(g.indexOffset() + 5 * 64, g.bucketOffset(5 + (1 << 16)), "bucket index is masked");
        assertTrue(g.containsExtent(g.extentsOffset(), 64));
        assertFalse(g.containsExtent(g.extentsOffset() - 64, 64));
        assertFalse(g.containsExtent(g.extentsOffset() + g.extentsLength() - 64, 128));
        assertFalse(g.containsExtent(Long.MAX_VALUE - 10, 64), "no overflow");
    }

    @Test
    void shouldCapExtentsAtWhatAnEntryCanAddress()
    {
        final PoolGeometry g = PoolGeometry.plan(1L << 40, 1 << 20);
        assertEquals(IndexEntry.MAX_EXTENT_OFFSET + 64, g.extentsOffset() + g.extentsLength());
    }

    @Test
    void shouldRoundTripEncodedForm()
    {
        final PoolGeometry g = PoolGeometry.plan(1L << 30, 1 << 18);
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[PoolGeometry.ENCODED_LENGTH + 3]);
        assertEquals(PoolGeometry.ENCODED_LENGTH, g.encode(buffer, 3));
        assertEquals(g, PoolGeometry.decode(buffer, 3, PoolGeometry.ENCODED_LENGTH));
        for (int length = 0; length < PoolGeometry.ENCODED_LENGTH; length++)
        {
            final int available = length;
            final ProtocolException ex = assertThrows(ProtocolException.class,
                () -> PoolGeometry.decode(buffer, 3, available));
            assertEquals(ErrorCode.TRUNCATED, ex.errorCode());
        }
    }

    @Test
    void shouldRejectInconsistentGeometry()
    {
        assertBad(() -> new PoolGeometry(1 << 20, I, 3, I + 3 * 64, 64), "bucket count not a power of two");
        assertBad(() -> new PoolGeometry(1 << 20, 0, 4, I, 64), "index overlaps header");
        assertBad(() -> new PoolGeometry(1 << 20, 4096, 4, I, 64), "index overlaps the ownership table");
        assertBad(() -> new PoolGeometry(1 << 20, I + 4, 4, I + 4096, 64), "misaligned index");
        assertBad(() -> new PoolGeometry(1 << 20, I, 4, I + 64, 64), "extents overlap index");
        assertBad(() -> new PoolGeometry(1 << 20, I, 4, I + 4096, 1 << 20), "extents beyond pool");
        assertBad(() -> new PoolGeometry(1 << 20, I, 1L << 40, I + 4096, 64), "index beyond pool");
        assertBad(() -> new PoolGeometry(-64, I, 4, I + 4096, 64), "negative pool");
        assertBad(() -> new PoolGeometry(1 << 20, I, 4, I + 4096, -64), "negative extents");
        assertBad(() -> new PoolGeometry(1 << 20, I, 0, I + 4096, 64), "no buckets");
        assertBad(() -> PoolGeometry.plan(8192, 1024), "plan that does not fit");
    }

    private static void assertBad(final org.junit.jupiter.api.function.Executable executable, final String why)
    {
        final ProtocolException ex = assertThrows(ProtocolException.class, executable, why);
        assertEquals(ErrorCode.BAD_GEOMETRY, ex.errorCode(), why);
    }
}

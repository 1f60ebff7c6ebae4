package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class IndexBucketFlyweightTest
{
    private final UnsafeBuffer pool = new UnsafeBuffer(ByteBuffer.allocateDirect(4 * 64));
    private final IndexBucketFlyweight bucket = new IndexBucketFlyweight();

    @Test
    void shouldPublishEntriesReadableFromARemoteCopy()
    {
        bucket.wrap(pool, 64);
        final long a = IndexEntry.encode(0x1111, 8192, 64);
        final long b = IndexEntry.encode(0x2222, 8256, 128);
        bucket.publish(0, a).publish(7, b);

        // What a client holds after a one-sided read of the bucket: a plain byte copy.
        final byte[] copy = new byte[64];
        pool.getBytes(64, copy);
        final IndexBucketFlyweight remote = new IndexBucketFlyweight().wrap(new UnsafeBuffer(copy), 0);
        assertEquals(a, remote.entry(0));
        assertEquals(b, remote.entry(7));
        assertEquals(a, ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).getLong(0), "slots are little-endian");
        assertEquals(0, remote.find(0x1111, 0));
        assertEquals(7, remote.find(0x2222, 0));
        assertEquals(-1, remote.find(0x1111, 1));
        assertEquals(-1, remote.find(0x3333, 0));
        assertEquals(1, remote.findEmpty());
        assertEquals(2, remote.occupancy());
    }

    @Test
    void shouldFindEveryEntrySharingAFingerprint()
    {
        bucket.wrap(pool, 0);
        bucket.publish(2, IndexEntry.encode(9, 4096, 64)).publish(5, IndexEntry.encode(9, 4160, 64));
        final int first = bucket.find(9, 0);
        assertEquals(2, first);
        assertEquals(5, bucket.find(9, first + 1));
        assertEquals(-1, bucket.find(9, 6));
    }

    @Test
    void shouldReportFullBucketAndCompareAndSet()
    {
        bucket.wrap(pool, 128);
        for (int i = 0; i < IndexBucketFlyweight.ENTRY_COUNT; i++)
        {
            bucket.publish(i, IndexEntry.encode(i + 1, 4096L + 64 * i, 64));
        }
        assertEquals(-1, bucket.findEmpty());
        final long old = bucket.entry(3);
        final long replacement = IndexEntry.encode(4, 1 << 20, 192);
        assertTrue(bucket.compareAndSet(3, old, replacement));
        assertFalse(bucket.compareAndSet(3, old, IndexEntry.EMPTY));
        assertEquals(replacement, bucket.entry(3));
        assertTrue(bucket.compareAndSet(3, replacement, IndexEntry.EMPTY));
        assertEquals(3, bucket.findEmpty());
    }

    @Test
    void shouldRejectShortBuffersAndReadOnlyPublishing()
    {
        final ProtocolException ex = assertThrows(ProtocolException.class,
            () -> bucket.wrap(new UnsafeBuffer(new byte[63]), 0));
        assertEquals(ErrorCode.TRUNCATED, ex.errorCode());
        assertThrows(ProtocolException.class, () -> bucket.wrap(pool, 4 * 64 - 32));
        assertThrows(ProtocolException.class, () -> bucket.wrap(pool, -1));

        // ExpandableArrayBuffer is mutable but not atomic: reading works, publishing must refuse.
        final org.agrona.ExpandableArrayBuffer plain = new org.agrona.ExpandableArrayBuffer(64);
        plain.putLong(8, IndexEntry.encode(3, 4096, 64), ByteOrder.LITTLE_ENDIAN);
        final IndexBucketFlyweight viaPlain = new IndexBucketFlyweight().wrap(plain, 0);
        assertEquals(1, viaPlain.find(3, 0));
        assertThrows(IllegalStateException.class, () -> viaPlain.publish(0, 1L << 48));
    }
}

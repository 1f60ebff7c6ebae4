package io.rdmakv.protocol.layout;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The layout's reader protocol against a writer that reuses extents immediately (no grace period, the worst case):
 * a reader that copies bucket and extent byte by byte (weaker than a real RDMA read, which at least does not tear an
 * aligned 8-byte word) must never accept a torn value, even when the slot it followed was itself torn.
 */
class ConcurrentPublishTest
{
    private static final byte[] KEY = "hot-key".getBytes(StandardCharsets.US_ASCII);
    private static final int VALUE_LENGTH = 200;

    @Test
    @Timeout(value = 10, unit = TimeUnit.SECONDS)
    void shouldNeverAcceptATornValueWhileExtentsAreReused() throws InterruptedException
    {
        final PoolGeometry geometry = PoolGeometry.plan(1 << 20, 16);
        final UnsafeBuffer pool = new UnsafeBuffer(ByteBuffer.allocateDirect((int)geometry.poolSize()));
        final long hash = KeyHash.hash(KEY);
        final int fingerprint = KeyHash.fingerprint(hash);
        final int bucketOffset = (int)geometry.bucketOffset(KeyHash.primaryBucket(hash, geometry.bucketCount()));
        final int extentLength = ValueExtentFlyweight.requiredLength(KEY.length, VALUE_LENGTH);
        final long[] extentOffsets = {geometry.extentsOffset(), geometry.extentsOffset() + extentLength};

        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicReference<String> failure = new AtomicReference<>();
        final Thread writer = new Thread(() ->
        {
            final ValueExtentFlyweight extent = new ValueExtentFlyweight();
            final IndexBucketFlyweight bucket = new IndexBucketFlyweight().wrap(pool, bucketOffset);
            final byte[] value = new byte[VALUE_LENGTH];
            long version = 1;
            while (running.get())
            {
                final long offset = extentOffsets[(int)(version & 1)];
                java.util.Arrays.fill(value, (byte)version);
                extent.wrap(pool, (int)offset, extentLength).write(KEY, value, version);
                bucket.publish(0, IndexEntry.encode(fingerprint, offset, extentLength));
                version++;
            }
        }, "writer");

        final ValueExtentFlyweight extent = new ValueExtentFlyweight();
        final IndexBucketFlyweight bucket = new IndexBucketFlyweight();
        final UnsafeBuffer bucketCopy = new UnsafeBuffer(new byte[IndexBucketFlyweight.BUCKET_LENGTH]);
        final UnsafeBuffer extentCopy = new UnsafeBuffer(new byte[extentLength]);
        int ok = 0;
        int torn = 0;
        writer.start();
        // At least 300 ms of racing, and on until the reader accepted a value (a count that must move: the writer
        // may not have published one yet on a loaded machine); 30 s bound a hang.
        final long start = System.nanoTime();
        final long deadline = start + TimeUnit.MILLISECONDS.toNanos(300);
        final long giveUp = start + TimeUnit.SECONDS.toNanos(30);
        try
        {
            while ((System.nanoTime() < deadline || ok == 0) && System.nanoTime() < giveUp)
            {
                copyBytewise(pool, bucketOffset, bucketCopy, IndexBucketFlyweight.BUCKET_LENGTH);
                final int index = bucket.wrap(bucketCopy, 0).find(fingerprint, 0);
                if (index < 0)
                {
                    continue;
                }
                final long entry = bucket.entry(index);
                if (!IndexEntry.isValid(entry, geometry) || IndexEntry.extentLength(entry) > extentLength)
                {
                    // A bytewise copy can tear the slot itself; a reader must then simply retry.
                    torn++;
                    continue;
                }
                copyBytewise(pool, (int)IndexEntry.extentOffset(entry), extentCopy, IndexEntry.extentLength(entry));
                final ExtentStatus status = extent.wrap(extentCopy, 0, IndexEntry.extentLength(entry)).verify(KEY);
                if (status == ExtentStatus.OK)
                {
                    ok++;
                    final byte expected = (byte)extent.version();
                    for (int i = 0; i < VALUE_LENGTH; i++)
                    {
                        if (extentCopy.getByte(extent.valueIndex() + i) != expected)
                        {
                            failure.set("accepted a torn value at version " + extent.version());
                        }
                    }
                }
                else
                {
                    // TORN_CRC for a torn extent; BAD_LENGTH or KEY_MISMATCH when a torn slot pointed mid-extent.
                    torn++;
                }
            }
        }
        finally
        {
            running.set(false);
            writer.join();
        }
        assertNull(failure.get(), "ok=" + ok + " torn=" + torn);
        assertTrue(ok > 0, "reader accepted nothing (torn=" + torn + ")");
    }

    private static void copyBytewise(final UnsafeBuffer from, final int offset, final UnsafeBuffer to, final int length)
    {
        for (int i = 0; i < length; i++)
        {
            to.putByte(i, from.getByte(offset + i));
        }
    }
}

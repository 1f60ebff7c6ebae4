package io.rdmakv.server.pool;

import io.rdmakv.protocol.layout.ExtentStatus;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reader that knows only the published layout, as a remote client does: header -> geometry; key -> hash -> two
 * buckets -> entries with the fingerprint -> extent -> verify. It copies what it reads (like an RDMA read would) before
 * looking at it. Test helper; a view over the whole pool (test pools are small).
 */
final class LayoutReader
{
    private final UnsafeBuffer pool;
    private final PoolGeometry geometry;
    private final PoolHeaderFlyweight header = new PoolHeaderFlyweight();
    private final IndexBucketFlyweight bucket = new IndexBucketFlyweight();
    private final ValueExtentFlyweight extent = new ValueExtentFlyweight();
    private final UnsafeBuffer bucketCopy = new UnsafeBuffer(new byte[IndexBucketFlyweight.BUCKET_LENGTH]);
    private long lastExtentOffset = -1;
    private Runnable betweenReads = () -> { };
    private long lastDataVersion;
    private long lastExpiryMillis;

    LayoutReader(final long address, final int size)
    {
        this.pool = new UnsafeBuffer(address, size);
        this.geometry = header.wrap(pool, 0).validate().geometry();
    }

    /** Run between reading a bucket and reading an extent: models the gap between two remote reads. */
    LayoutReader betweenReads(final Runnable pause)
    {
        this.betweenReads = pause;
        return this;
    }

    PoolGeometry geometry()
    {
        return geometry;
    }

    boolean isComplete()
    {
        return header.wrap(pool, 0).isComplete();
    }

    long keyCount()
    {
        return header.wrap(pool, 0).keyCount();
    }

    /** The value of {@code key}, or null when no entry leads to an extent that verifies for it. */
    byte[] get(final byte[] key)
    {
        final long hash = KeyHash.hash(key);
        final int fp = KeyHash.fingerprint(hash);
        final long[] buckets = {
            KeyHash.primaryBucket(hash, geometry.bucketCount()), KeyHash.secondaryBucket(hash, geometry.bucketCount())};
        for (final long b : buckets)
        {
            pool.getBytes((int)geometry.bucketOffset(b), bucketCopy, 0, IndexBucketFlyweight.BUCKET_LENGTH);
            bucket.wrap(bucketCopy, 0);
            for (int i = bucket.find(fp, 0); i >= 0; i = bucket.find(fp, i + 1))
            {
                final long entry = bucket.entry(i);
                if (!IndexEntry.isValid(entry, geometry))
                {
                    continue;
                }
                final byte[] copy = new byte[IndexEntry.extentLength(entry)];
                betweenReads.run();
                pool.getBytes((int)IndexEntry.extentOffset(entry), copy);
                extent.wrap(new UnsafeBuffer(copy), 0, copy.length);
                if (extent.verify(key) == ExtentStatus.OK)
                {
                    lastExtentOffset = IndexEntry.extentOffset(entry);
                    lastDataVersion = extent.dataVersion();
                    lastExpiryMillis = extent.expiryMillis();
                    return extent.value();
                }
            }
        }
        return null;
    }

    /** The data version and the expiry in the extent the last successful {@link #get} read (the same read). */
    long lastDataVersion()
    {
        return lastDataVersion;
    }

    long lastExpiryMillis()
    {
        return lastExpiryMillis;
    }

    /** Pool offset of the extent the last successful {@link #get} used. */
    long lastExtentOffset()
    {
        return lastExtentOffset;
    }

    /** Verify the extent at a pool offset as belonging to {@code key}; returns the value or null. */
    byte[] readExtentAt(final long offset, final int length, final byte[] key)
    {
        final byte[] copy = new byte[length];
        pool.getBytes((int)offset, copy);
        extent.wrap(new UnsafeBuffer(copy), 0, length);
        return extent.verify(key) == ExtentStatus.OK ? extent.value() : null;
    }

    /**
     * What a client that remembered {@code key}'s location and version sees when it reads that extent alone
     * ({@link ValueExtentFlyweight#verifyCurrent}): OK only while the extent is intact, of that version and LIVE.
     */
    ExtentStatus readRemembered(final long indexEntry, final byte[] key, final long version)
    {
        final byte[] copy = new byte[IndexEntry.extentLength(indexEntry)];
        pool.getBytes((int)IndexEntry.extentOffset(indexEntry), copy);
        extent.wrap(new UnsafeBuffer(copy), 0, copy.length);
        return extent.verifyCurrent(new UnsafeBuffer(key), 0, key.length, version);
    }
}

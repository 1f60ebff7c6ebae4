package io.rdmakv.server.store;

import io.rdmakv.protocol.wire.Status;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;
import org.rocksdb.WriteOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Group commit for {@link Durability#FSYNC}: one committer thread takes every write queued while the previous sync
 * was running, applies them as ONE {@link WriteBatch} with ONE synced WAL write, then completes all their callbacks.
 * N writers arriving together therefore cost about one sync, not N.
 *
 * <pre>
 *   submitters ──► [bounded queue] ──► committer: take first, drain the rest (≤ maxBatch)
 *                                          │  WriteBatch(put/delete...) ; db.write(sync=true)   ← one fsync
 *                                          └► callbacks in submission order
 * </pre>
 *
 * Order is kept: writes are applied and completed in the order they were queued. The queue is bounded; when it is
 * full {@link #submit} returns {@code false} and the caller answers BUSY instead of blocking its thread.
 *
 * <p>An atomic multi-key write ({@link StoreBatch}, {@link #submitBatch}) is ONE element of the queue: the group that
 * takes it takes all of its entries into its write batch (the group bound counts queued writes, not entries), so it
 * is synced with that group, never split across two, and completed once in its place in the order. A group whose
 * write fails fails every write in it: RocksDB applied none of the group's write batch, so nothing of the atomic write
 * is half-applied.
 *
 * <p>Each write may carry its replication state ({@link KeptRecords}: its write id's answer, a replica's applied
 * sequence, removals of records): added to the group's write batch right after the write's own entries, so the same
 * synced WAL write holds both (no extra sync, no extra RocksDB write), and a group that fails writes none of them. A
 * unit of records alone ({@link #submitRecords}: removals no write carried) joins a group the same way.
 */
final class GroupCommitter implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(GroupCommitter.class);
    private static final int OK = Status.OK.code();
    private static final int NOT_FOUND = Status.NOT_FOUND.code();

    private final RocksDB db;
    private final ColumnFamilyHandle keys;
    /** Encodes the writes' records (this thread's own: its scratch buffers). */
    private final WriteRecords records;
    private final WriteOptions syncOptions;
    private final BlockingQueue<PendingWrite> queue;
    private final int maxBatch;
    private final Thread thread;
    private final AtomicLong syncCount = new AtomicLong();
    private final AtomicLong writeCount = new AtomicLong();
    /** Writes queued, and writes the committer is done with (written, or failed): {@link #awaitApplied}. */
    private final AtomicLong submitted = new AtomicLong();
    private final AtomicLong applied = new AtomicLong();
    /** Per batch index: whether a deletion's key existed (committer thread only). */
    private final boolean[] existed;
    private volatile boolean running = true;

    /** @param records encodes the records writes carry, on the committer thread only. */
    GroupCommitter(final RocksDB db, final ColumnFamilyHandle keys, final WriteRecords records,
        final int queueCapacity, final int maxBatch, final String name)
    {
        this.db = db;
        this.keys = keys;
        this.records = records;
        this.syncOptions = new WriteOptions().setSync(true);
        this.queue = new ArrayBlockingQueue<>(queueCapacity);
        this.maxBatch = maxBatch;
        this.existed = new boolean[maxBatch];
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /**
     * Queue a write of a store key ({@link StoreKeys}); {@code value == null} means delete; {@code kept} (or null) is
     * written with it. Returns false when the queue is full or closed.
     */
    boolean submit(final byte[] key, final byte[] value, final KeptRecords kept, final Object context,
        final WriteCallback callback)
    {
        if (!running)
        {
            return false;
        }
        return offer(new PendingWrite(key, value, null, kept, context, callback));
    }

    /**
     * Queue an atomic multi-key write as one unit: written whole in the next group commit that takes it, completed
     * once ({@link WriteCallback#onWriteComplete}). Returns false when the queue is full or closed.
     */
    boolean submitBatch(final StoreBatch batch, final KeptRecords kept, final Object context,
        final WriteCallback callback)
    {
        if (!running)
        {
            return false;
        }
        return offer(new PendingWrite(null, null, batch, kept, context, callback));
    }

    /**
     * Queue records that no write carries (removals: a failed write's record, idle writers): written in the next
     * group commit, in order with the writes around them. Returns false when the queue is full or closed.
     */
    boolean submitRecords(final KeptRecords kept, final Object context, final WriteCallback callback)
    {
        if (!running)
        {
            return false;
        }
        return offer(new PendingWrite(null, null, null, kept, context, callback));
    }

    private boolean offer(final PendingWrite write)
    {
        final boolean queued = queue.offer(write);
        if (queued)
        {
            submitted.incrementAndGet();
        }
        return queued;
    }

    /**
     * Wait until every write queued before this call is written to RocksDB (or failed): a caller that decides from
     * what RocksDB holds (a conditional write) then sees every write submitted before it, in order. At most one
     * group commit's sync, normally.
     *
     * @return false when {@code timeoutNanos} passed first, or the committer stopped.
     */
    boolean awaitApplied(final long timeoutNanos)
    {
        final long target = submitted.get();
        final long deadline = System.nanoTime() + timeoutNanos;
        while (applied.get() < target)
        {
            if (!thread.isAlive() || System.nanoTime() - deadline > 0)
            {
                return false;
            }
            LockSupport.parkNanos(20_000);
        }
        return true;
    }

    /** Synced WAL writes performed so far (one per batch). */
    long syncCount()
    {
        return syncCount.get();
    }

    /** Individual writes committed so far (an atomic batch counts once; records alone do not count). */
    long writeCount()
    {
        return writeCount.get();
    }

    private void run()
    {
        final List<PendingWrite> batch = new ArrayList<>(maxBatch);
        while (running || !queue.isEmpty())
        {
            try
            {
                final PendingWrite first = queue.poll(50, TimeUnit.MILLISECONDS);
                if (first == null)
                {
                    continue;
                }
                batch.add(first);
                queue.drainTo(batch, maxBatch - 1);
                commit(batch);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
            finally
            {
                batch.clear();
            }
        }
        // Anything still queued after an interrupt is failed, never silently dropped.
        PendingWrite left;
        while ((left = queue.poll()) != null)
        {
            left.callback.onWriteComplete(left.context, new StoreException("store closed before the write was committed"));
            applied.incrementAndGet();
        }
    }

    private void commit(final List<PendingWrite> batch)
    {
        StoreException failure = null;
        try (WriteBatch wb = new WriteBatch())
        {
            int writes = 0;
            for (int i = 0, n = batch.size(); i < n; i++)
            {
                final PendingWrite w = batch.get(i);
                int outcome = OK;
                if (w.batch != null)
                {
                    w.batch.addTo(wb, keys); // whole, in this group's one write
                }
                else if (w.isDelete())
                {
                    existed[i] = existsBefore(batch, i);
                    wb.delete(keys, w.key);
                    outcome = existed[i] ? OK : NOT_FOUND;
                }
                else if (w.key != null)
                {
                    wb.put(keys, w.key, w.value);
                }
                if (w.kept != null)
                {
                    w.kept.addTo(wb, records, outcome); // with the write's entries: one WAL record holds both
                }
                writes += w.recordsOnly() ? 0 : 1;
            }
            db.write(syncOptions, wb);
            syncCount.incrementAndGet();
            writeCount.addAndGet(writes);
        }
        catch (final RocksDBException ex)
        {
            failure = new StoreException("synced write failed: " + ex.getMessage(), ex);
            if (!failure.noSpace()) // a full disk is logged once by the DiskFullGuard, not per batch
            {
                LOG.error("group commit of {} writes failed: {}", batch.size(), ex.getMessage());
            }
        }
        finally
        {
            applied.addAndGet(batch.size()); // readable in RocksDB now (or failed): awaitApplied may return
        }
        for (int i = 0, n = batch.size(); i < n; i++)
        {
            final PendingWrite w = batch.get(i);
            try
            {
                if (w.isDelete())
                {
                    w.callback.onDeleteComplete(w.context, existed[i], failure);
                }
                else
                {
                    w.callback.onWriteComplete(w.context, failure);
                }
            }
            catch (final RuntimeException ex)
            {
                LOG.error("write callback threw", ex);
            }
        }
    }

    /**
     * Whether the key of the deletion at {@code index} exists once the writes before it are applied: the latest earlier
     * write of the same key in this batch decides, else RocksDB (every earlier batch is already committed, and only
     * this thread writes in FSYNC mode).
     */
    private boolean existsBefore(final List<PendingWrite> batch, final int index) throws RocksDBException
    {
        final byte[] key = batch.get(index).key;
        for (int j = index - 1; j >= 0; j--)
        {
            final PendingWrite earlier = batch.get(j);
            if (earlier.recordsOnly())
            {
                continue;
            }
            if (earlier.batch != null)
            {
                final int entry = earlier.batch.lastWriteOf(key);
                if (entry != StoreBatch.NOT_WRITTEN)
                {
                    return earlier.batch.isPut(entry);
                }
            }
            else if (Arrays.equals(earlier.key, key))
            {
                return earlier.value != null;
            }
        }
        return db.get(keys, key) != null;
    }

    /** Stop accepting, commit what is queued, and stop the thread. */
    @Override
    public void close()
    {
        running = false;
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(30));
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        syncOptions.close();
    }

    /**
     * A write of {@code key} ({@code value} null: a deletion), or an atomic {@code batch} (then key is null), or
     * neither (records alone); {@code kept}: the records written with it, or null.
     */
    private record PendingWrite(byte[] key, byte[] value, StoreBatch batch, KeptRecords kept, Object context,
        WriteCallback callback)
    {
        boolean isDelete()
        {
            return key != null && value == null;
        }

        boolean recordsOnly()
        {
            return key == null && batch == null;
        }
    }
}

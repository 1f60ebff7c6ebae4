package io.rdmakv.server.store;

import org.rocksdb.RocksDB;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Records a {@link RocksStore}'s latest sequence number in {@link SequenceMark#FILE} when it moved: at open, every
 * {@value #SEQUENCE_MARK_INTERVAL_MILLIS} ms on its own thread, and at close. A failure is logged once,
 * then again only after a success. Thread-safe; after {@link #finish()} nothing is written (RocksDB may close).
 */
final class SequenceMarker
{
    /**
     * How often the store records its sequence number outside RocksDB ({@link SequenceMark}) while it moves: a small
     * synced file write at most this often, never per write. A WAL cut short is then reported at the next start
     * with at least the writes applied up to the last record.
     */
    public static final long SEQUENCE_MARK_INTERVAL_MILLIS = 1_000;

    /** Logs as the store it marks. */
    private static final Logger LOG = LoggerFactory.getLogger(RocksStore.class);

    private final Path directory;
    private final RocksDB db;
    private final ScheduledExecutorService thread;
    /** The sequence last recorded. */
    private long marked = -1;
    private boolean failed;
    private boolean finished;

    SequenceMarker(final Path directory, final RocksDB db)
    {
        this.directory = directory;
        this.db = db;
        record("open");
        this.thread = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "rdmakv-sequence-mark");
            t.setDaemon(true);
            return t;
        });
        thread.scheduleWithFixedDelay(() -> record("periodic"), SEQUENCE_MARK_INTERVAL_MILLIS,
            SEQUENCE_MARK_INTERVAL_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Record the latest sequence number when it moved since the last record. */
    synchronized void record(final String event)
    {
        if (finished)
        {
            return;
        }
        final long sequence = db.getLatestSequenceNumber();
        if (sequence == marked)
        {
            return;
        }
        try
        {
            new SequenceMark(sequence, Instant.now(), event).write(directory);
            marked = sequence;
            failed = false;
        }
        catch (final IOException | RuntimeException ex)
        {
            if (!failed)
            {
                LOG.warn("cannot record the sequence number in {}: {} (a WAL cut short would not be counted)",
                    directory.resolve(SequenceMark.FILE), ex.toString());
                failed = true;
            }
        }
    }

    /** Stop the periodic records; one running finishes its write. */
    void stopPeriodic()
    {
        thread.shutdown();
        try
        {
            thread.awaitTermination(10, TimeUnit.SECONDS);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
    }

    /** The last record (at close); a periodic run still going past the wait then finds it finished and leaves. */
    synchronized void finish()
    {
        record("close");
        finished = true;
    }
}

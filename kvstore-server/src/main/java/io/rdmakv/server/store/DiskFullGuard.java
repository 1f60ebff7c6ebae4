package io.rdmakv.server.store;

import org.rocksdb.AbstractEventListener;
import org.rocksdb.BackgroundErrorReason;
import org.rocksdb.RocksDBException;
import org.rocksdb.Status;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Keeps a node serving through a full disk: a reserve file ({@link DiskReserve}, {@code store.diskReserve}) is given
 * back the moment RocksDB reports ENOSPC, so that RocksDB resumes (its own recovery waits for free space), DELETEs
 * and compaction can run, and the disk is cleared through the API without a restart.
 *
 * <pre>
 *   NORMAL  --ENOSPC (a write, a flush, a compaction: RocksDB's NoSpace)--> STOPPED   one ERROR line; reserve released
 *   STOPPED --a probe write succeeds (RocksDB resumed)-------------------> FULL
 *   FULL    --free >= resume threshold, reserve re-created----------------> NORMAL    one INFO line
 *   STOPPED, FULL: PUTs refused (DISK_FULL); DELETEs go to RocksDB (refused by it while STOPPED)
 *   FULL: after writes (DELETEs), the keys are flushed and compacted, so deleted values leave the disk; a compaction
 *         that fails for want of room (it rewrites what is left) is tried again after further writes, at most every
 *         {@value #RECLAIM_RETRY_MILLIS} ms
 * </pre>
 * The resume threshold is twice the reserve, at least twice the memtable: once the reserve is back, as much is free.
 * With no reserve ({@code 0}) the node still refuses PUTs on ENOSPC, but RocksDB resumes only when space is freed
 * outside the node. ENOSPC is seen by RocksDB's background-error listener ({@link #listener()}) and by every write
 * that failed with it ({@link #onNoSpace}). The checker thread ({@value #CHECK_INTERVAL_MILLIS} ms) does the rest;
 * {@link #full()} is one volatile read for the request path.
 */
public final class DiskFullGuard implements AutoCloseable
{
    /** How often the checker looks at a full disk. */
    public static final long CHECK_INTERVAL_MILLIS = 500;
    /** After a flush and compaction that failed (no room to rewrite what is left), the wait before the next one. */
    public static final long RECLAIM_RETRY_MILLIS = 5_000;
    /** What a refused PUT is told. */
    public static final String REFUSAL = "the node's disk is full: PUTs are refused until space is freed; DELETEs " +
        "are served (delete keys to free space)";

    private static final Logger LOG = LoggerFactory.getLogger(DiskFullGuard.class);

    /** Where the node is. */
    public enum State
    {
        /** Writes taken. */
        NORMAL,
        /** ENOSPC: RocksDB refuses every write until it resumed; PUTs refused. */
        STOPPED,
        /** RocksDB takes writes again; PUTs still refused until the resume threshold is free. */
        FULL
    }

    /** What the guard asks of the store (on the checker thread). */
    interface StoreActions
    {
        /** A tiny write that fails while RocksDB is stopped by its background error. */
        void probe() throws RocksDBException;

        /** Flush the memtables and compact the keys, so deleted values leave the disk. */
        void reclaim() throws RocksDBException;

        /** RocksDB's latest sequence number (moves with every write). */
        long sequence();
    }

    private final Path directory;
    private final DiskReserve reserve;
    private final long resumeFreeBytes;
    private final Listener listener = new Listener();
    private final AtomicLong episodes = new AtomicLong();
    private volatile State state = State.NORMAL;
    private volatile ScheduledExecutorService checker;
    private StoreActions actions;
    /** Checker thread only: the sequence the last reclaim saw, when the next may run, what was logged. */
    private long reclaimedAt = -1;
    private long nextReclaimNanos = System.nanoTime();
    private boolean reclaimFailureLogged;
    /** Whether this episode logged that RocksDB stopped again (once per episode). */
    private boolean restopLogged;

    /**
     * @param reserveBytes    the reserve's size, 0 for none.
     * @param writeBufferSize RocksDB's memtable size (the resume threshold is at least twice it).
     */
    DiskFullGuard(final Path directory, final long reserveBytes, final long writeBufferSize)
    {
        this.directory = directory;
        this.reserve = new DiskReserve(directory, reserveBytes);
        this.resumeFreeBytes = 2 * Math.max(reserveBytes, writeBufferSize);
    }

    /** RocksDB's listener that reports ENOSPC in its background work and in the WAL writes (set before open). */
    AbstractEventListener listener()
    {
        return listener;
    }

    /** Once RocksDB is open: allocate the reserve and start the checker. A disk too full for it starts FULL. */
    synchronized void start(final StoreActions storeActions)
    {
        this.actions = storeActions;
        if (reserve.bytes() > 0)
        {
            try
            {
                reserve.create();
            }
            catch (final IOException ex)
            {
                LOG.warn("cannot reserve {} bytes in {} (store.diskReserve): {}; PUTs are refused until {} bytes " +
                    "are free", reserve.bytes(), directory.toAbsolutePath(), ex.getMessage(), resumeFreeBytes);
                state = State.FULL;
                episodes.incrementAndGet();
            }
        }
        checker = Executors.newSingleThreadScheduledExecutor(r ->
        {
            final Thread t = new Thread(r, "rdmakv-disk-guard");
            t.setDaemon(true);
            return t;
        });
        checker.scheduleWithFixedDelay(this::check, CHECK_INTERVAL_MILLIS, CHECK_INTERVAL_MILLIS,
            TimeUnit.MILLISECONDS);
    }

    /** True while PUTs are refused. One volatile read. */
    public boolean full()
    {
        return state != State.NORMAL;
    }

    public State state()
    {
        return state;
    }

    /** Times the disk was found full since start. */
    public long episodes()
    {
        return episodes.get();
    }

    /** The reserve's size in bytes (0: none). */
    public long reserveBytes()
    {
        return reserve.bytes();
    }

    /** Free bytes at which PUTs are taken again. */
    public long resumeFreeBytes()
    {
        return resumeFreeBytes;
    }

    /** A write or RocksDB failed with ENOSPC: release the reserve, refuse PUTs. Any thread; cheap when known. */
    void onNoSpace(final String cause)
    {
        final long released;
        synchronized (this)
        {
            if (state == State.STOPPED)
            {
                return;
            }
            final boolean fresh = state == State.NORMAL;
            state = State.STOPPED;
            if (!fresh)
            {
                if (!restopLogged)
                {
                    restopLogged = true;
                    LOG.warn("disk full at {}: RocksDB stopped writing again ({}); it resumes when space is free " +
                        "(logged once until the disk has room)", directory.toAbsolutePath(), cause);
                }
                return;
            }
            episodes.incrementAndGet();
            released = reserve.release();
        }
        LOG.error("disk full at {}: {}; released the {}-byte reserve ({} bytes free now); PUTs are refused " +
            "(DISK_FULL) until {} bytes are free, DELETEs are served", directory.toAbsolutePath(), cause, released,
            usableSpace(), resumeFreeBytes);
    }

    /** The checker's round: see the class comment. */
    void check()
    {
        try
        {
            if (state == State.STOPPED)
            {
                probe();
            }
            if (state == State.FULL)
            {
                reclaim();
                resumeIfRoom();
            }
        }
        catch (final RuntimeException ex)
        {
            LOG.warn("disk check at {} failed: {}", directory.toAbsolutePath(), ex.toString());
        }
    }

    private void probe()
    {
        final long before = actions.sequence();
        try
        {
            actions.probe();
            if (reclaimedAt == before || reclaimedAt < 0)
            {
                reclaimedAt = actions.sequence(); // nothing deleted yet: the probe's own write is nothing to reclaim
            }
        }
        catch (final RocksDBException ex)
        {
            return; // still stopped: RocksDB resumes once its own check finds free space
        }
        synchronized (this)
        {
            if (state == State.STOPPED)
            {
                state = State.FULL;
                LOG.info("disk full at {}: RocksDB takes writes again; DELETEs are served, PUTs refused until {} " +
                    "bytes are free", directory.toAbsolutePath(), resumeFreeBytes);
            }
        }
    }

    private void reclaim()
    {
        final long sequence = actions.sequence();
        if (sequence == reclaimedAt || System.nanoTime() - nextReclaimNanos < 0)
        {
            return;
        }
        try
        {
            actions.reclaim();
            reclaimedAt = actions.sequence();
        }
        catch (final RocksDBException ex)
        {
            if (!reclaimFailureLogged)
            {
                LOG.warn("disk full at {}: flush and compaction failed ({}); tried again after further writes, at " +
                    "most every {} ms (logged once until the disk has room)", directory.toAbsolutePath(),
                    ex.getMessage(), RECLAIM_RETRY_MILLIS);
                reclaimFailureLogged = true;
            }
            reclaimedAt = sequence;
            nextReclaimNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RECLAIM_RETRY_MILLIS);
        }
    }

    private void resumeIfRoom()
    {
        final long free = usableSpace();
        if (free < resumeFreeBytes)
        {
            return;
        }
        synchronized (this)
        {
            if (state != State.FULL)
            {
                return;
            }
            try
            {
                reserve.create();
            }
            catch (final IOException ex)
            {
                return; // taken meanwhile: try again at the next round
            }
            state = State.NORMAL;
            reclaimedAt = -1;
            reclaimFailureLogged = false;
            restopLogged = false;
        }
        LOG.info("disk has room again at {}: {} bytes free, the {}-byte reserve is back; PUTs are accepted",
            directory.toAbsolutePath(), free, reserve.bytes());
    }

    private long usableSpace()
    {
        try
        {
            return Files.getFileStore(directory).getUsableSpace();
        }
        catch (final IOException ex)
        {
            return -1;
        }
    }

    /** Stop the checker (before RocksDB closes). The reserve stays for the next start. */
    @Override
    public void close()
    {
        final ScheduledExecutorService running = checker;
        if (running != null)
        {
            running.shutdownNow();
            try
            {
                running.awaitTermination(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Releases the listener's native side; after RocksDB closed. */
    void closeListener()
    {
        listener.close();
    }

    /** RocksDB's background errors: a NoSpace one (WAL write, flush, compaction) is a full disk. */
    private final class Listener extends AbstractEventListener
    {
        Listener()
        {
            super(AbstractEventListener.EnabledEventCallback.ON_BACKGROUND_ERROR);
        }

        @Override
        public void onBackgroundError(final BackgroundErrorReason reason, final Status status)
        {
            if (status != null && status.getSubCode() == Status.SubCode.NoSpace)
            {
                onNoSpace("RocksDB " + reason + ": " + status.getCodeString() +
                    (status.getState() == null ? "" : " " + status.getState()));
            }
        }
    }
}

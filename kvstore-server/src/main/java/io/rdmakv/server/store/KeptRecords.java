package io.rdmakv.server.store;

import org.agrona.concurrent.UnsafeBuffer;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.util.Arrays;

/**
 * The replication state ({@link WriteRecords}) one write carries to the {@link GroupCommitter} (durability FSYNC):
 * its client write id's answer, the replication sequence a replica applied with it, and removals of records waiting
 * for a batch. The committer adds them to the group's one {@link WriteBatch} right after the write's own entries, so
 * the one synced WAL write of the group holds both, all or nothing, as DEFAULT's batches do; a group that fails
 * writes neither. Filled on the request thread from plain values (the committer encodes them with its own
 * {@link WriteRecords}: the encoders' scratch buffers belong to one thread), then handed over with the write (the
 * committer's queue is the happens-before edge) and not touched again.
 */
public final class KeptRecords
{
    /** {@link #write}: the write's answer is its own outcome (OK; a DELETE of nothing: NOT_FOUND). */
    public static final int OWN_OUTCOME = -1;

    private boolean hasWrite;
    private long writer;
    private long sequence;
    private long completedBelow;
    private int answer = OWN_OUTCOME;
    private long dataVersion;
    private byte[] counter;
    private boolean hasApplied;
    private int sender;
    private long incarnation;
    private long appliedSequence;
    private long[] forgetWriters;
    private long[] forgetSequences;
    private int forgets;
    private long[] goneWriters;
    private int gone;

    /**
     * The record of write {@code sequence} of {@code writer}, answered {@code answer} ({@link #OWN_OUTCOME}: as the
     * write turns out), with the data version a PUT wrote ({@code dataVersion}, 0: none) and a counter's new value
     * ({@code counter}, null: none).
     */
    public KeptRecords write(final long writer, final long sequence, final long completedBelow, final int answer,
        final long dataVersion, final byte[] counter)
    {
        this.hasWrite = true;
        this.writer = writer;
        this.sequence = sequence;
        this.completedBelow = completedBelow;
        this.answer = answer;
        this.dataVersion = dataVersion;
        this.counter = counter;
        return this;
    }

    /** The write is {@code sequence} of {@code sender}'s {@code incarnation} (a replica's replicated write). */
    public KeptRecords applied(final int sender, final long incarnation, final long sequence)
    {
        this.hasApplied = true;
        this.sender = sender;
        this.incarnation = incarnation;
        this.appliedSequence = sequence;
        return this;
    }

    /** Remove the record of write {@code sequence} of {@code writer} (a reconcile undid it, or it failed). */
    public KeptRecords forget(final long writer, final long sequence)
    {
        if (forgetWriters == null || forgets == forgetWriters.length)
        {
            final int length = forgetWriters == null ? 4 : 2 * forgets;
            forgetWriters = forgetWriters == null ? new long[length] : Arrays.copyOf(forgetWriters, length);
            forgetSequences = forgetSequences == null ? new long[length] : Arrays.copyOf(forgetSequences, length);
        }
        forgetWriters[forgets] = writer;
        forgetSequences[forgets] = sequence;
        forgets++;
        return this;
    }

    /** Remove every record of {@code writer} (forgotten: idle too long). */
    public KeptRecords forgetWriter(final long writer)
    {
        if (goneWriters == null || gone == goneWriters.length)
        {
            goneWriters = goneWriters == null ? new long[16] : Arrays.copyOf(goneWriters, 2 * gone);
        }
        goneWriters[gone++] = writer;
        return this;
    }

    /** Whether it holds nothing to write. */
    public boolean isEmpty()
    {
        return !hasWrite && !hasApplied && forgets == 0 && gone == 0;
    }

    /**
     * Add every record and removal to {@code batch}: the removals first (as DEFAULT adds them), then the write's record
     * and the applied sequence.
     *
     * @param records encodes them (one per thread: its scratch buffers).
     * @param outcome the write's own answer (a Status code) unless one was given to {@link #write}.
     */
    void addTo(final WriteBatch batch, final WriteRecords records, final int outcome) throws RocksDBException
    {
        for (int i = 0; i < gone; i++)
        {
            records.addForgetWriter(batch, goneWriters[i]);
        }
        for (int i = 0; i < forgets; i++)
        {
            records.addForget(batch, forgetWriters[i], forgetSequences[i]);
        }
        if (hasWrite)
        {
            final int status = answer == OWN_OUTCOME ? outcome : answer;
            if (dataVersion != 0)
            {
                final int length = counter == null ? 0 : counter.length;
                records.addWrite(batch, writer, sequence, completedBelow, status, dataVersion,
                    length == 0 ? null : new UnsafeBuffer(counter), 0, length);
            }
            else
            {
                records.addWrite(batch, writer, sequence, completedBelow, status);
            }
        }
        if (hasApplied)
        {
            records.addApplied(batch, sender, incarnation, appliedSequence);
        }
    }
}

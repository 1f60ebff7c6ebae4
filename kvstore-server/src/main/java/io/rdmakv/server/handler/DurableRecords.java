package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.store.KeptRecords;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.WriteRecords;
import org.agrona.DirectBuffer;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

/**
 * What the write being handed to the local write path records beside its data ({@link WriteRecords}), in the same
 * RocksDB batch: the answer for its client write id (set by the replication package's {@code WriteIds}) and, for a
 * primary's REPLICATE, the replication sequence applied from the sender. Set just before the write path's put or
 * delete, taken by the path when it adds the write to its batch, cleared after. Removals of records (a reconcile
 * undid a write, a write failed, a writer was forgotten) go with the next batch or, when no write may come soon, at
 * once.
 *
 * <p>Under both durabilities: DEFAULT's paths write on the request thread and add the records to their own batch
 * ({@link #addTo}, {@link InlineBatchWritePath}); under FSYNC the group committer builds the batches, so the path
 * hands the records over with the write ({@link #toCarry}, {@link KeptRecords}) and the committer adds them to the
 * group's batch beside the write's entries: one synced WAL write holds both. Removals no write carries go to the
 * committer alone ({@link RocksStore#submitRecords}). Request thread only.
 */
public final class DurableRecords
{
    /** Keeps nothing (a test without a store, or a path whose writes carry no write ids). */
    public static final DurableRecords NONE = new DurableRecords(null);

    private static final int NO_ANSWER = -1;
    private static final int MAX_FORGETS = 64;

    private final RocksStore store;
    private final WriteRecords records;
    /** Whether the store writes on the request thread (DEFAULT): removals alone are written here, else submitted. */
    private final boolean inline;
    private boolean hasWrite;
    private long writer;
    private long sequence;
    private long completedBelow;
    private int answer = NO_ANSWER;
    private boolean hasApplied;
    private int sender;
    private long incarnation;
    private long replicationSequence;
    private final long[] forgetWriterIds = new long[MAX_FORGETS];
    private final long[] forgetSequences = new long[MAX_FORGETS];
    private int forgets;

    /** @param store null keeps nothing; else its {@link WriteRecords}, under either durability. */
    public DurableRecords(final RocksStore store)
    {
        this.store = store;
        this.records = store == null ? null : store.writeRecords();
        this.inline = store != null && store.writesInline();
    }

    /** Whether records are kept on disk. */
    public boolean kept()
    {
        return records != null;
    }

    /** The write about to be handed over carries this client write id; {@code answer} overrides its outcome. */
    public void write(final long writer, final long sequence, final long completedBelow, final Status answer)
    {
        if (records == null)
        {
            return;
        }
        hasWrite = true;
        this.writer = writer;
        this.sequence = sequence;
        this.completedBelow = completedBelow;
        this.answer = answer == null ? NO_ANSWER : answer.code();
    }

    /** The write about to be handed over is {@code sequence} of {@code sender}'s {@code incarnation}. */
    public void applied(final int sender, final long incarnation, final long sequence)
    {
        if (records == null)
        {
            return;
        }
        hasApplied = true;
        this.sender = sender;
        this.incarnation = incarnation;
        this.replicationSequence = sequence;
    }

    /** The write was handed over (or refused): what it carried is no longer current. */
    public void clear()
    {
        hasWrite = false;
        hasApplied = false;
    }

    /** Whether {@link #addTo} would add anything. */
    boolean pending()
    {
        return hasWrite || hasApplied || forgets > 0;
    }

    /** Remove the record of write {@code sequence} of {@code writer} with the next batch. */
    public void forget(final long writer, final long sequence)
    {
        if (records == null)
        {
            return;
        }
        if (forgets == MAX_FORGETS)
        {
            flushForgets();
        }
        forgetWriterIds[forgets] = writer;
        forgetSequences[forgets] = sequence;
        forgets++;
    }

    /** Remove the record of write {@code sequence} of {@code writer} now (no write may follow soon). */
    public void forgetNow(final long writer, final long sequence)
    {
        forget(writer, sequence);
        flushForgets();
    }

    /** Remove every record of each of {@code writers} now, in one batch (a sweep's idle writers). */
    public void forgetWriters(final long[] writers, final int count)
    {
        if (records == null || count == 0)
        {
            return;
        }
        if (!inline)
        {
            final KeptRecords gone = new KeptRecords();
            for (int i = 0; i < count; i++)
            {
                gone.forgetWriter(writers[i]);
            }
            store.submitRecords(gone); // refused (queue full): they stay on disk, forgotten again when idle
            return;
        }
        try (WriteBatch batch = new WriteBatch())
        {
            for (int i = 0; i < count; i++)
            {
                records.addForgetWriter(batch, writers[i]);
            }
            store.write(batch);
        }
        catch (final RocksDBException | StoreException ex)
        {
            // Their records stay on disk: loaded again at the next start, then forgotten again when idle.
        }
    }

    /**
     * FSYNC: the current write's records and the removals waiting, to be handed to the group committer with the write
     * ({@link RocksStore#submitPut}, {@link RocksStore#submitDelete}, {@link RocksStore#submitBatch}); null when there
     * is nothing. The removals stay waiting until {@link #carried} says the committer took the write (a write refused
     * BUSY carries nothing away).
     *
     * @param record a PUT's {@link ValueRecord} (its data version and a counter's value go into the write's record),
     *               or null.
     */
    KeptRecords toCarry(final DirectBuffer record, final int recordIndex, final int recordLength)
    {
        if (records == null || !pending())
        {
            return null;
        }
        final KeptRecords kept = waitingRemovals();
        if (hasWrite)
        {
            final int status = answer == NO_ANSWER ? KeptRecords.OWN_OUTCOME : answer;
            if (isRecord(record, recordIndex, recordLength))
            {
                final boolean counter = (ValueRecord.flags(record, recordIndex) & ValueRecord.FLAG_COUNTER) != 0;
                final byte[] value = counter ? new byte[recordLength - ValueRecord.HEADER_LENGTH] : null;
                if (value != null)
                {
                    record.getBytes(recordIndex + ValueRecord.HEADER_LENGTH, value);
                }
                kept.write(writer, sequence, completedBelow, status, ValueRecord.dataVersion(record, recordIndex),
                    value);
            }
            else
            {
                kept.write(writer, sequence, completedBelow, status, 0, null);
            }
        }
        if (hasApplied)
        {
            kept.applied(sender, incarnation, replicationSequence);
        }
        return kept;
    }

    /** The committer took the write {@link #toCarry} was made for: the removals it carries are no longer waiting. */
    void carried()
    {
        forgets = 0;
    }

    /**
     * Add the current write's records and the removals waiting to {@code batch}, which also holds the write.
     *
     * @param outcome the write's own answer (OK, or NOT_FOUND for a DELETE of nothing), unless one was carried.
     */
    void addTo(final WriteBatch batch, final Status outcome) throws RocksDBException
    {
        addTo(batch, outcome, null, 0, 0);
    }

    /**
     * As {@link #addTo(WriteBatch, Status)} for a PUT of {@code record} (its {@link ValueRecord}): the write's record
     * carries the data version it wrote and a counter's new value, so a retry after a restart is answered with them.
     */
    void addTo(final WriteBatch batch, final Status outcome, final DirectBuffer record, final int recordIndex,
        final int recordLength) throws RocksDBException
    {
        for (int i = 0; i < forgets; i++)
        {
            records.addForget(batch, forgetWriterIds[i], forgetSequences[i]);
        }
        forgets = 0;
        if (hasWrite)
        {
            final int status = answer == NO_ANSWER ? outcome.code() : answer;
            if (isRecord(record, recordIndex, recordLength))
            {
                final boolean counter = (ValueRecord.flags(record, recordIndex) & ValueRecord.FLAG_COUNTER) != 0;
                records.addWrite(batch, writer, sequence, completedBelow, status,
                    ValueRecord.dataVersion(record, recordIndex), record, recordIndex + ValueRecord.HEADER_LENGTH,
                    counter ? recordLength - ValueRecord.HEADER_LENGTH : 0);
            }
            else
            {
                records.addWrite(batch, writer, sequence, completedBelow, status);
            }
        }
        if (hasApplied)
        {
            records.addApplied(batch, sender, incarnation, replicationSequence);
        }
    }

    /** The removals waiting, for the group committer (FSYNC). */
    private KeptRecords waitingRemovals()
    {
        final KeptRecords kept = new KeptRecords();
        for (int i = 0; i < forgets; i++)
        {
            kept.forget(forgetWriterIds[i], forgetSequences[i]);
        }
        return kept;
    }

    /** Whether {@code record} is a PUT's {@link ValueRecord} (its data version and a counter's value are known). */
    private static boolean isRecord(final DirectBuffer record, final int recordIndex, final int recordLength)
    {
        return record != null && recordLength >= ValueRecord.HEADER_LENGTH &&
            record.getByte(recordIndex + ValueRecord.FORMAT_OFFSET) == ValueRecord.FORMAT;
    }

    private void flushForgets()
    {
        if (forgets == 0)
        {
            return;
        }
        if (!inline)
        {
            store.submitRecords(waitingRemovals()); // refused (queue full): the records stay on disk, as below
            forgets = 0;
            return;
        }
        try (WriteBatch batch = new WriteBatch())
        {
            for (int i = 0; i < forgets; i++)
            {
                records.addForget(batch, forgetWriterIds[i], forgetSequences[i]);
            }
            store.write(batch);
        }
        catch (final RocksDBException | StoreException ex)
        {
            // The record stays on disk: a retry after a restart is answered from it (the write may be applied).
        }
        forgets = 0;
    }
}

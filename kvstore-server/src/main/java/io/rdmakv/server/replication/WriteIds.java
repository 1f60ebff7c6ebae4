package io.rdmakv.server.replication;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.handler.DurableRecords;
import io.rdmakv.server.handler.ResponseSender;
import io.rdmakv.server.handler.KeyBatch;
import io.rdmakv.server.handler.WriteOutcome;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * At-most-once writes: what this node remembers of the writes clients numbered ({@link
 * MessageHeaderFlyweight#FLAG_WRITE_ID}), so that a retry of a write it already applied is answered with that write's
 * outcome instead of being applied again. A client retries a PUT whose answer it never got (a connection lost, a
 * failover, a redirect); without this, a PUT applied by the first attempt, then overwritten by another client's
 * acknowledged PUT, was applied once more by the retry: the older value came back (a non-linearizable history the
 * fault tests recorded). Lee et al., "Implementing Linearizability at Large Scale and Low Latency" (RIFL, SOSP'15)
 * is the model: completion records kept per client, replicated with the write, and dropped once the client says it
 * has the answer.
 *
 * <pre>
 *   client write (w, s, below)  -> begin: new            -> recorded PENDING, the write goes on
 *                                         PENDING (a retry while the first is being made durable or replicated)
 *                                                         -> the retry waits for the first's outcome
 *                                         DONE(status)    -> answered with that status, nothing applied
 *   outcome of the write        -> DONE(OK | NOT_FOUND), waiters answered alike (a fix-up carrying the new
 *                                  primary's answer of the write id: DONE(that answer), whatever it did here)
 *   failure (nothing applied)   -> forgotten, waiters get the same failure (a retry may apply it)
 *   decided, nothing written    -> forgotten, waiters get the same answer (a refused condition: a retry decides
 *                                  again)
 *   replicated write (a backup) -> recorded like a client write: once promoted, this node answers the client's retry
 *   forget (a reconcile undid it) -> the record goes: a retry applies the write again
 *   below                       -> the writer's records under it are dropped (its answers arrived)
 * </pre>
 * Bounds: {@link #maxWritesPerWriter} records per writer (a writer past them gets BUSY: a client has at most its
 * in-flight window outstanding) and writers idle longer than {@code retainNanos} are dropped (a retry comes within
 * the client's request timeout, far less). Memory: one record and one map entry per write in flight, per writer.
 *
 * <p>Under either durability each record is written with its write, in the same RocksDB batch ({@link
 * DurableRecords}; FSYNC: the group commit's batch), and loaded at start ({@link #restore}): a restarted node answers
 * a retry as before. What it does not cover: the writes a catching-up replica takes from a checkpoint copy (they carry
 * no write id). A retry reaching such a node applies the write again, as before. Request thread only.
 */
public final class WriteIds
{
    /** What {@link #begin} decided. */
    public enum Start
    {
        /** A write not seen before (or no write id): apply it. */
        APPLY,
        /** A retry: answered now with the first attempt's outcome, or later when that outcome is known. */
        RETRY,
        /** Refused and answered (beyond the bounds, or a write the writer said was answered). */
        REFUSED
    }

    private static final int PENDING = -1;

    /** Records one writer may hold: far above a client's in-flight window (64 by default). */
    public static final int MAX_WRITES_PER_WRITER = 65_536;
    private static final int MAX_FREE_RECORDS = 4096;
    /** Writers remembered at once (each a map of its own). */
    public static final int MAX_WRITERS = 100_000;
    /** How long a writer that sends nothing is remembered: far above any request timeout a client would set. */
    public static final long RETAIN_NANOS = 600_000_000_000L;

    private final ResponseSender responses;
    /** The records kept with the data ({@link DurableRecords#NONE}: in memory only). */
    private final DurableRecords durable;
    /** Counts the retries answered ({@link ServerCounter#RETRIES_ANSWERED}). */
    private final ServerCounters counters;
    private final int maxWriters;
    private final int maxWritesPerWriter;
    private final long retainNanos;
    private final Long2ObjectHashMap<Writer> writers = new Long2ObjectHashMap<>();
    /** Writes whose outcome is awaited, by correlation id (the endpoint tells apart equal ids of two clients). */
    private final Long2ObjectHashMap<Record> awaited = new Long2ObjectHashMap<>();
    /** Records no longer used, for the next writes. */
    private final ArrayDeque<Record> free = new ArrayDeque<>();
    private long nextSweepNanos;
    /** The write id of the client write being started now (writer 0: none), for the copies sent to replicas. */
    private long currentWriter;
    private long currentSequence;
    private long currentCompletedBelow;

    /**
     * @param maxWriters         writers remembered at once; a new one past them gets BUSY until idle ones are dropped.
     * @param maxWritesPerWriter the records one writer may have at once (its window of writes in flight, and more).
     * @param retainNanos        how long a writer that sends nothing is remembered.
     */
    public WriteIds(final ResponseSender responses, final ServerCounters counters, final int maxWriters,
        final int maxWritesPerWriter, final long retainNanos)
    {
        this(responses, counters, maxWriters, maxWritesPerWriter, retainNanos, DurableRecords.NONE);
    }

    /** The default bounds, the records kept with the data of {@code store} (either durability). */
    public static WriteIds keptIn(final RocksStore store, final ResponseSender responses, final ServerCounters counters)
    {
        return new WriteIds(responses, counters, MAX_WRITERS, MAX_WRITES_PER_WRITER, RETAIN_NANOS,
            new DurableRecords(store));
    }

    /** As above, keeping the records with the data through {@code durable}. */
    public WriteIds(final ResponseSender responses, final ServerCounters counters, final int maxWriters,
        final int maxWritesPerWriter, final long retainNanos, final DurableRecords durable)
    {
        this.durable = durable;
        this.responses = responses;
        this.counters = counters;
        this.maxWriters = maxWriters;
        this.maxWritesPerWriter = maxWritesPerWriter;
        this.retainNanos = retainNanos;
    }

    /**
     * A client's PUT or DELETE arrived: decide whether to apply it. Without a write id it is applied (clients before
     * write ids; tools).
     */
    public Start begin(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final long nowNanos)
    {
        currentWriter = 0;
        if (!request.hasWriteId())
        {
            return Start.APPLY;
        }
        final Writer writer = writer(request.writerId(), request.writesCompletedBelow(), nowNanos);
        if (writer == null)
        {
            responses.answerError(endpoint, correlationId, Status.BUSY, "this node remembers the writes of " +
                maxWriters + " clients already; retry later");
            return Start.REFUSED;
        }
        final long sequence = request.writeSequence();
        final Record known = writer.records.get(sequence);
        if (known == null)
        {
            if (sequence < writer.completedBelow)
            {
                responses.answerError(endpoint, correlationId, Status.MALFORMED, "write " + sequence +
                    " is below the writer's completed-below mark " + writer.completedBelow + ": it was answered");
                return Start.REFUSED;
            }
            if (writer.records.size() >= maxWritesPerWriter)
            {
                responses.answerError(endpoint, correlationId, Status.BUSY, "more than " + maxWritesPerWriter +
                    " writes of this client are not yet answered here");
                return Start.REFUSED;
            }
            await(writer, sequence, endpoint, correlationId);
            durable.write(request.writerId(), sequence, request.writesCompletedBelow(), null);
            currentWriter = request.writerId();
            currentSequence = sequence;
            currentCompletedBelow = request.writesCompletedBelow();
            return Start.APPLY;
        }
        counters.increment(ServerCounter.RETRIES_ANSWERED);
        if (known.status == PENDING)
        {
            if (known.waiters == null)
            {
                known.waiters = new ArrayList<>(1);
            }
            known.waiters.add(new Waiter(endpoint, correlationId));
        }
        else
        {
            answerRecorded(endpoint, correlationId, known);
        }
        return Start.RETRY;
    }

    /**
     * Append the write id of the client write being started (the last {@link #begin} that answered APPLY, until
     * {@link #endCurrent}) to a copy of it for a replica; nothing when it carried none.
     */
    public void appendCurrentTo(final MessageHeaderFlyweight copy)
    {
        if (currentWriter != 0)
        {
            copy.appendWriteId(currentWriter, currentSequence, currentCompletedBelow);
        }
    }

    /** The write {@link #begin} let through has been handed to the write path. */
    public void endCurrent()
    {
        currentWriter = 0;
        durable.clear();
    }

    /**
     * The replicated write about to be applied is {@code sequence} of {@code sender}'s {@code incarnation}: kept with
     * it, so a restarted replica knows what it applied ({@link #endCurrent} after handing it over).
     */
    void appliedFrom(final int sender, final long incarnation, final long sequence)
    {
        durable.applied(sender, incarnation, sequence);
    }

    /** The records kept with the data, for the local write paths. */
    public DurableRecords durable()
    {
        return durable;
    }

    /**
     * A record kept with the data, found at start: its retry is answered {@code answer} as before the restart (the
     * writer is remembered from {@code nowNanos} on, like a new one).
     */
    public void restore(final long writerId, final long sequence, final long completedBelow, final Status answer,
        final long nowNanos)
    {
        restore(writerId, sequence, completedBelow, answer, 0, null, nowNanos);
    }

    /**
     * As above, with what the first attempt's answer carried: the data version a PUT wrote ({@code dataVersion}, 0:
     * none) and a counter's new value ({@code counter}, null: none), so a retry after the restart gets them too.
     */
    public void restore(final long writerId, final long sequence, final long completedBelow, final Status answer,
        final long dataVersion, final byte[] counter, final long nowNanos)
    {
        final Writer writer = writer(writerId, completedBelow, nowNanos);
        if (writer == null || answer == null || sequence < writer.completedBelow ||
            writer.records.containsKey(sequence) || writer.records.size() >= maxWritesPerWriter)
        {
            return;
        }
        final Record r = free.isEmpty() ? new Record() : free.poll();
        r.writer = writer;
        r.sequence = sequence;
        r.status = answer.code();
        r.answer = PENDING;
        r.forgotten = false;
        r.dataVersion = dataVersion;
        r.counterLength = 0;
        if (counter != null && counter.length <= r.counter.capacity())
        {
            r.counter.putBytes(0, counter);
            r.counterLength = counter.length;
        }
        writer.records.put(sequence, r);
    }

    /**
     * A primary's replicated write arrived at this replica: remember the client's write id once it is durable here,
     * so that this node, if promoted, answers the client's retry instead of applying the write again.
     */
    public void beginReplicated(final Endpoint endpoint, final long correlationId,
        final MessageHeaderFlyweight request, final long nowNanos)
    {
        beginReplicated(endpoint, correlationId, request, null, nowNanos);
    }

    /**
     * As {@link #beginReplicated(Endpoint, long, MessageHeaderFlyweight, long)}, recording {@code answer} for the
     * write id instead of this node's outcome when not null: a reconcile's fix-up carries the answer the new primary
     * recorded for the client's write (a DELETE it answered OK may find nothing left to delete here).
     */
    public void beginReplicated(final Endpoint endpoint, final long correlationId,
        final MessageHeaderFlyweight request, final Status answer, final long nowNanos)
    {
        if (!request.hasWriteId())
        {
            return;
        }
        final Writer writer = writer(request.writerId(), request.writesCompletedBelow(), nowNanos);
        final long sequence = request.writeSequence();
        if (writer == null || writer.records.containsKey(sequence) || sequence < writer.completedBelow ||
            writer.records.size() >= maxWritesPerWriter)
        {
            return; // sent again (a link re-established), answered, or beyond the bound: applied as before
        }
        await(writer, sequence, endpoint, correlationId).answer = answer == null ? PENDING : answer.code();
        durable.write(request.writerId(), sequence, request.writesCompletedBelow(), answer);
    }

    /**
     * The answer recorded for write {@code sequence} of {@code writerId}: what this node answers its retry with; null
     * when there is no record or its outcome is not known yet.
     */
    public Status answered(final long writerId, final long sequence)
    {
        final Writer writer = writers.get(writerId);
        final Record r = writer == null ? null : writer.records.get(sequence);
        return r == null || r.status == PENDING ? null : Status.fromCode(r.status);
    }

    /**
     * Forget the write {@code sequence} of {@code writerId}: a new primary's reconcile undid it on this replica (the
     * write never reached the new primary, so it was never acknowledged), and a retry of it must be applied, not
     * answered from the record. A record still awaiting its outcome is answered as usual and then dropped.
     */
    public void forget(final long writerId, final long sequence)
    {
        final Writer writer = writers.get(writerId);
        final Record r = writer == null ? null : writer.records.remove(sequence);
        if (r == null)
        {
            return;
        }
        durable.forget(writerId, sequence); // with the fix-up that undoes it, in its batch
        if (r.status == PENDING)
        {
            r.forgotten = true; // still linked among the awaited: done() or failed() recycles it
            return;
        }
        recycle(r);
    }

    /** The outcome reported for writes on this node: records it, then answers retries that waited for it. */
    public WriteOutcome around(final WriteOutcome outcome)
    {
        return new WriteOutcome()
        {
            @Override
            public void putDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
                final DirectBuffer value, final int valueIndex, final int valueLength)
            {
                outcome.putDurable(endpoint, correlationId, key, value, valueIndex, valueLength);
                final Record r = done(endpoint, correlationId, Status.OK, value, valueIndex, valueLength);
                if (r != null)
                {
                    answerWaiters(r);
                }
            }

            @Override
            public void deleteDurable(final Endpoint endpoint, final long correlationId, final HashedKey key,
                final boolean existed)
            {
                outcome.deleteDurable(endpoint, correlationId, key, existed);
                final Record r = done(endpoint, correlationId, existed ? Status.OK : Status.NOT_FOUND, null, 0, 0);
                if (r != null)
                {
                    answerWaiters(r);
                }
            }

            @Override
            public void batchDurable(final Endpoint endpoint, final long correlationId, final KeyBatch batch)
            {
                outcome.batchDurable(endpoint, correlationId, batch);
                final Record r = done(endpoint, correlationId, Status.OK, null, 0, 0); // one answer: no version
                if (r != null)
                {
                    answerWaiters(r);
                }
            }

            /** A GET held behind writes: no write id is involved. */
            @Override
            public void read(final Endpoint endpoint, final long correlationId, final byte[] value,
                final long dataVersion)
            {
                outcome.read(endpoint, correlationId, value, dataVersion);
            }

            /**
             * A record write that wrote nothing (a refused condition): its record goes, as a failure's does (nothing
             * of it reached the store), so a retry decides again; retries that waited get the same answer.
             */
            @Override
            public void unwritten(final Endpoint endpoint, final long correlationId, final Status status,
                final long dataVersion, final long expiryMillis, final String reason)
            {
                outcome.unwritten(endpoint, correlationId, status, dataVersion, expiryMillis, reason);
                final Record r = take(endpoint, correlationId);
                if (r != null)
                {
                    if (!r.forgotten)
                    {
                        r.writer.records.remove(r.sequence);
                    }
                    if (r.waiters != null)
                    {
                        for (final Waiter w : r.waiters)
                        {
                            outcome.unwritten(w.endpoint, w.correlationId, status, dataVersion, expiryMillis, reason);
                        }
                    }
                    recycle(r);
                }
            }

            @Override
            public void failed(final Endpoint endpoint, final long correlationId, final Status status,
                final String reason)
            {
                outcome.failed(endpoint, correlationId, status, reason);
                final Record r = take(endpoint, correlationId);
                if (r != null)
                {
                    if (!r.forgotten)
                    {
                        r.writer.records.remove(r.sequence);
                        durable.forgetNow(r.writer.id, r.sequence); // kept if the write reached the store
                    }
                    if (r.waiters != null)
                    {
                        for (final Waiter w : r.waiters)
                        {
                            responses.answerError(w.endpoint, w.correlationId, status, reason);
                        }
                    }
                    recycle(r);
                }
            }
        };
    }

    /** Drop writers idle longer than the retention (at most once a second; any call does it when due). */
    public void sweep(final long nowNanos)
    {
        if (nowNanos - nextSweepNanos < 0)
        {
            return;
        }
        nextSweepNanos = nowNanos + 1_000_000_000L;
        long[] gone = null;
        int count = 0;
        final Iterator<Writer> it = writers.values().iterator();
        while (it.hasNext())
        {
            final Writer w = it.next();
            if (nowNanos - w.lastSeenNanos > retainNanos && !w.awaitsAnOutcome())
            {
                it.remove();
                if (gone == null || count == gone.length)
                {
                    gone = java.util.Arrays.copyOf(gone == null ? new long[0] : gone, Math.max(16, 2 * count));
                }
                gone[count++] = w.id;
            }
        }
        durable.forgetWriters(gone, count); // their records on disk too, one batch for the sweep
    }

    /** Writers remembered now. */
    public int writers()
    {
        return writers.size();
    }

    /** Records of writes held now, over every writer. */
    public int records()
    {
        int n = 0;
        for (final Writer w : writers.values())
        {
            n += w.records.size();
        }
        return n;
    }

    /** The writer's state, made if new; null when {@link #maxWriters} are remembered already. */
    private Writer writer(final long id, final long completedBelow, final long nowNanos)
    {
        sweep(nowNanos);
        Writer w = writers.get(id);
        if (w == null)
        {
            if (writers.size() >= maxWriters)
            {
                return null;
            }
            w = new Writer(id);
            writers.put(id, w);
        }
        w.lastSeenNanos = nowNanos;
        w.advance(completedBelow);
        return w;
    }

    /**
     * The outcome of the awaited write of this endpoint's request: recorded, with the data version a PUT wrote and a
     * counter's new value when {@code record} (the write's {@link ValueRecord}) carries them, so that a retry is
     * answered as the first attempt was, value included (a retried INCREMENT gets the value it made). Returns the
     * record for {@link #answerWaiters}, or null when the write carried no write id.
     */
    private Record done(final Endpoint endpoint, final long correlationId, final Status status,
        final DirectBuffer record, final int recordIndex, final int recordLength)
    {
        final Record r = take(endpoint, correlationId);
        if (r == null)
        {
            return null;
        }
        r.status = r.answer == PENDING ? status.code() : r.answer;
        r.dataVersion = 0;
        r.counterLength = 0;
        if (record != null && recordLength >= ValueRecord.HEADER_LENGTH &&
            record.getByte(recordIndex + ValueRecord.FORMAT_OFFSET) == ValueRecord.FORMAT)
        {
            r.dataVersion = ValueRecord.dataVersion(record, recordIndex);
            final int valueLength = recordLength - ValueRecord.HEADER_LENGTH;
            if ((ValueRecord.flags(record, recordIndex) & ValueRecord.FLAG_COUNTER) != 0 &&
                valueLength <= r.counter.capacity())
            {
                r.counter.putBytes(0, record, recordIndex + ValueRecord.HEADER_LENGTH, valueLength);
                r.counterLength = valueLength;
            }
        }
        return r;
    }

    /** Answer the retries that waited for {@code r}'s outcome, then let it go where it is no longer needed. */
    private void answerWaiters(final Record r)
    {
        if (r.waiters != null)
        {
            for (final Waiter w : r.waiters)
            {
                answerRecorded(w.endpoint, w.correlationId, r);
            }
            r.waiters = null;
        }
        if (r.forgotten)
        {
            recycle(r); // a reconcile undid it meanwhile: out of the writer's records already
            return;
        }
        if (r.sequence < r.writer.completedBelow)
        {
            r.writer.records.remove(r.sequence); // the writer has its answer from elsewhere meanwhile
            recycle(r);
        }
    }

    /**
     * A retry answered from {@code r}: its status, and for an applied PUT its data version and a counter's value, as
     * the first attempt's answer carried them (a record restored at start carries them when its write was a PUT written
     * with them; one written before records carried them knows only its status).
     */
    private void answerRecorded(final Endpoint endpoint, final long correlationId, final Record r)
    {
        if (r.status == Status.OK.code() && r.dataVersion != 0)
        {
            responses.answerWritten(endpoint, correlationId, 0, 0, r.dataVersion, r.counter, 0, r.counterLength);
            return;
        }
        responses.answer(endpoint, correlationId, Status.fromCode(r.status), 0, 0);
    }

    private Record await(final Writer writer, final long sequence, final Endpoint endpoint, final long correlationId)
    {
        final Record r = free.isEmpty() ? new Record() : free.poll();
        r.writer = writer;
        r.sequence = sequence;
        r.endpoint = endpoint;
        r.correlationId = correlationId;
        r.status = PENDING;
        r.answer = PENDING;
        r.forgotten = false;
        writer.records.put(sequence, r);
        r.nextAwaited = awaited.put(correlationId, r);
        return r;
    }

    private void recycle(final Record r)
    {
        r.writer = null;
        r.endpoint = null;
        r.nextAwaited = null;
        r.waiters = null;
        if (free.size() < MAX_FREE_RECORDS)
        {
            free.add(r);
        }
    }

    /** The awaited record of this endpoint's request, unlinked; null when it carried no write id. */
    private Record take(final Endpoint endpoint, final long correlationId)
    {
        Record r = awaited.get(correlationId);
        Record before = null;
        while (r != null && r.endpoint != endpoint)
        {
            before = r;
            r = r.nextAwaited;
        }
        if (r == null)
        {
            return null;
        }
        if (before != null)
        {
            before.nextAwaited = r.nextAwaited;
        }
        else if (r.nextAwaited != null)
        {
            awaited.put(correlationId, r.nextAwaited);
        }
        else
        {
            awaited.remove(correlationId);
        }
        r.nextAwaited = null;
        r.endpoint = null;
        return r;
    }

    private final class Writer
    {
        final long id;
        final Long2ObjectHashMap<Record> records = new Long2ObjectHashMap<>();

        Writer(final long id)
        {
            this.id = id;
        }

        long completedBelow;
        long lastSeenNanos;

        void advance(final long below)
        {
            if (below <= completedBelow)
            {
                return;
            }
            completedBelow = below;
            final Iterator<Record> it = records.values().iterator();
            while (it.hasNext())
            {
                final Record r = it.next();
                // A record still awaiting its outcome stays: its answer is owed to the endpoint that sent it.
                if (r.sequence < below && r.status != PENDING)
                {
                    it.remove();
                    recycle(r);
                }
            }
        }

        boolean awaitsAnOutcome()
        {
            for (final Record r : records.values())
            {
                if (r.status == PENDING)
                {
                    return true;
                }
            }
            return false;
        }
    }

    /** One numbered write; reused (records come and go with every write, and the request path allocates nothing). */
    private static final class Record
    {
        Writer writer;
        long sequence;
        /** Retries waiting for the outcome; null while there are none. */
        List<Waiter> waiters;
        /** Cleared once the outcome is known. */
        Endpoint endpoint;
        long correlationId;
        Record nextAwaited;
        int status;
        /** The answer to record instead of this node's outcome (a fix-up's, see beginReplicated), or PENDING. */
        int answer;
        /** Taken out of the writer's records while its outcome was awaited ({@link #forget}). */
        boolean forgotten;
        /** The data version an applied PUT wrote (0: none known, a DELETE, a record restored at start). */
        long dataVersion;
        /** A counter's new value as its record holds it (decimal ASCII, at most 20 bytes), {@code counterLength}. */
        final UnsafeBuffer counter = new UnsafeBuffer(new byte[20]);
        int counterLength;
    }

    private record Waiter(Endpoint endpoint, long correlationId)
    {
    }
}

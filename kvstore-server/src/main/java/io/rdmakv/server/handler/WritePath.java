package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;

/**
 * How the request thread makes a PUT or DELETE durable before its effect is visible: chosen once, at start, from the
 * durability setting ({@link WritePaths#local}), and decorated by the node that assembles it (write ids, and
 * replication in a cluster; {@link WritePathDecorator}). A path reports every write exactly once to its
 * {@link WriteOutcome} (pool update and answer), in the order the writes were given to it, always after the write is
 * durable.
 *
 * <pre>
 *   DEFAULT : InlineBatchWritePath  - the PUTs of one progress step as one RocksDB batch on the request thread
 *   FSYNC   : GroupCommitWritePath  - copied and handed to the group committer; completions drained by doWork()
 *   cluster : ReplicatingWritePath  - a local path above, plus the write sent to the range's in-sync backups
 * </pre>
 * Request thread only. The buffers passed in are valid only during the call, and so is the {@link HashedKey}: the
 * request thread's one key reference, hashed once at decode and read by every path and outcome below (a path that
 * keeps a write past the call copies the key's bytes and its two hashes).
 */
public interface WritePath extends LocalWrites, AutoCloseable
{
    /**
     * Start making {@code key -> value} durable.
     *
     * @param request the message the write came in (its header carries the client's write id, if any).
     */
    void put(Endpoint endpoint, long correlationId, MessageHeaderFlyweight request, HashedKey key, DirectBuffer value,
        int valueIndex, int valueLength);

    /** Start deleting {@code key}; the outcome says whether it existed. {@code request}: as for {@link #put}. */
    void delete(Endpoint endpoint, long correlationId, MessageHeaderFlyweight request, HashedKey key);

    /**
     * A write that decides from the key's current record ({@link RecordWrites}: a condition, a counter, an expiry
     * change). The write-id check lets it through once, as a PUT or DELETE (a retry is answered from the first
     * attempt's record and {@code decision} never runs); {@code decision} then runs with the path below that check,
     * reads the key's record and hands the path a PUT or a DELETE, or answers without writing.
     */
    default void recordWrite(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final HashedKey key, final RecordWrites.Decision decision)
    {
        decision.decide(this, endpoint, correlationId, request, key);
    }

    /**
     * Answer a request that decided from {@code key}'s stored record and wrote nothing ({@link RecordWrites}: a refused
     * condition, a counter that is not one, an expiry change of an absent key, a TTL read), through the outcome, in
     * order behind every write this path took before it. The decision read RocksDB, which holds writes not answered
     * yet (awaiting their backups, or the group commit's report); the pool, which one-sided GETs read, shows a write
     * only once it is answered. Answered at once, a refusal could show a write that a one-sided GET begun after the
     * answer does not see yet (a stale read; the fault set's compare-and-set histories found it). Held, it is answered
     * after that write, or, when a write before it failed, fails retryably itself (nothing was written). A path of a
     * cluster refuses it as a write when the node is no longer the key's primary or holds no lease (the record it read
     * may be behind). The answer's parts are {@link WriteOutcome#unwritten}'s.
     */
    void answerUnwritten(Endpoint endpoint, long correlationId, HashedKey key, Status status, long dataVersion,
        long expiryMillis, String reason);

    /**
     * Start making an atomic multi-key write durable ({@link KeyBatch}: keys of one hash slot, each PUT's value its
     * record): every entry in one RocksDB write batch, reported once ({@link WriteOutcome#batchDurable}). Both
     * durabilities' paths take one (FSYNC: as one unit of a group commit); a path that does not refuses it here.
     */
    default void batch(final Endpoint endpoint, final long correlationId, final MessageHeaderFlyweight request,
        final KeyBatch batch)
    {
        throw new UnsupportedOperationException("this write path takes no atomic batches");
    }

    /**
     * Write what is batched now: called before a request that is not a PUT, so it sees every PUT that arrived earlier
     * on the local store. Returns the writes completed.
     */
    @Override
    int flush();

    /**
     * Whether a GET of {@code key} arriving on {@code endpoint} now must wait for {@link #flush}: true while a write
     * this path holds unwritten is of the same key (the GET must see it) or came on the same endpoint (answers leave a
     * connection in the order its requests came). A GET of another key on another connection need not see a write
     * that is not acknowledged yet: it is ordered before it, and every PUT of other connections arriving in the same
     * read cycle still joins one batch. The default, true, flushes before every GET.
     */
    default boolean holdsWriteFor(final Endpoint endpoint, final HashedKey key)
    {
        return true;
    }

    /**
     * Whether RocksDB may now hold a write this path took and has not answered, one that could still be lost (a
     * replicated write awaiting its backups: the primary dying before any backup has it loses it). A GET that misses
     * the pool and reads RocksDB meanwhile answers through {@link #answerRead}, behind those writes, and does not put
     * what it read into the pool. False by default: a local path's writes are answered as soon as RocksDB has them
     * (DEFAULT), or are visible there only once synced (FSYNC), so what a read finds there is never lost.
     */
    default boolean holdsUnansweredWrites()
    {
        return false;
    }

    /**
     * Answer a GET that read RocksDB while {@link #holdsUnansweredWrites}: {@code value} (null: NOT_FOUND, an expired
     * record included) with its {@code dataVersion}, after every write this path took before it; failed retryably
     * (BUSY, or WRONG_NODE with the owner) when one of those failed, since the read may have seen it.
     */
    default void answerRead(final Endpoint endpoint, final long correlationId, final HashedKey key, final byte[] value,
        final long dataVersion)
    {
        throw new UnsupportedOperationException("this write path answers every read at once");
    }

    /** The request thread's duty cycle: flush, and complete writes that became durable on other threads. */
    int doWork();

    /** Writes accepted and not reported yet. */
    @Override
    int inFlightWrites();

    /** Request thread, at shutdown: release what the path holds; writes not reported were never acknowledged. */
    @Override
    void close();
}

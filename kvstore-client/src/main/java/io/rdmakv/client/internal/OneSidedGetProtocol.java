package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvError;
import io.rdmakv.protocol.layout.ExtentStatus;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.IndexEntry;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import io.rdmakv.protocol.layout.SlotOwnershipTable;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;

import java.nio.ByteOrder;
import java.util.concurrent.locks.LockSupport;

/**
 * The one-sided GET, as a state machine over a {@link RequestSlot}:
 *
 * <pre>
 *   start ──► read lease on this node held (client clock) ? no ──► RPC GET (its answer renews the lease)
 *     ▼ yes
 *   location of the key cached for this node ?  (LocationCache, per NodeSession)
 *     │ yes: read the extent + the hash slot's ownership word ─ ONE batch, ONE round trip
 *     │        word not LIVE/MIGRATING at the map's epoch ──────────────────────────► RPC GET (re-route)
 *     │        verifyCurrent: lengths + CRC32C + key + version + state LIVE(version):
 *     │          OK ──► value (cache hit)
 *     │          anything else (RETIRED, VERSION_MISMATCH, KEY_MISMATCH, torn) ──► forget it (invalidation) ──┐
 *     ▼ no (cache miss)                                                                                       │
 *   read primary bucket + secondary bucket + pool header + the hash slot's ownership word (one readBatch)  ◄──┘
 *               │ header magic/epoch differ ─────────────────────────────────────────► RPC GET (fallback)
 *               │ layout version not ours ──► this node's GETs go by RPC ─────────────► RPC GET (fallback)
 *               │ ownership word not LIVE/MIGRATING at the map's epoch ──────────────► RPC GET (re-route)
 *               ▼
 *             candidates = valid entries whose fingerprint matches, primary bucket first
 *               │ none left ──► a key mismatched on the way ? retry from the start (as torn)
 *               │               : pool COMPLETE ? NOT_FOUND (miss) : RPC GET (miss lookup)
 *               ▼
 *             read the candidate's extent (its entry's length) ──── larger than the buffer ──► RPC GET (fallback)
 *               ▼
 *             verify lengths + CRC32C + key:  OK ──► value (hit); remember the location if the extent is LIVE
 *                                             KEY_MISMATCH ──► next candidate
 *                                             TORN_CRC / BAD_LENGTH ──► retry from the start, at most readRetries
 *                                                                       times, then RPC GET (fallback)
 * </pre>
 *
 * <p><b>Why a cached read is linearizable.</b> The server's single writer, whenever it supersedes a published extent
 * (update, delete, eviction), first stores RETIRED into the old extent's state word, then publishes the new index entry
 * (a release store, so the mark is visible to anyone who can see the new entry), and only then answers the writer's
 * client. Take the write's linearization point as the entry store. A cached read that sees LIVE(version) read the
 * state word before the retire mark became visible, hence before the entry store: at that instant the extent's value
 * was the key's committed value, and the read returns it (the rest of the extent is intact: it is not reused before
 * the grace period, and if a slow read outlived it, CRC, key and version catch the new bytes). A read that starts
 * after a write was acknowledged sees the mark, drops the entry and runs the full protocol, which finds the new entry.
 * The version check makes an entry useless once its extent is reused, even for the same key, and because versions
 * carry the pool epoch in their high bits, a pool rebuilt with the same layout never matches an old entry either.
 * Node restarts also end the session, and with it the cache. The full protocol itself is unchanged: it is
 * linearized at its bucket read.
 *
 * <p><b>Threads.</b> The first read (or batch) is posted by the caller's thread. A step whose reads complete on
 * return ({@link Endpoint#readImmediate}: shm, where the node's pool is mapped into this process) is finished on the
 * thread that posted it, and the next step posted there too, in one loop ({@link #drive}): a cached GET on shm runs
 * from call to value on the caller's thread, with no hand-off to the progress thread and back (UCX's immediate
 * completion). A step with a read posted the ordinary way is finished by the thread that completes its last read,
 * the worker's progress thread, and continues there, never blocking it: a back-pressured post is handed to the
 * {@link ClientConductor}, which re-posts it on a later duty cycle. So a request slot's state machine runs on one
 * thread at a time (the one that made its {@code pendingReads} reach zero) but not always the same one: every piece of
 * it is thread-agnostic (flyweights per thread, the {@link LocationCache} takes writers from any thread). The only
 * allocation per GET is the returned value.
 *
 * <p><b>Why a one-sided read stays correct across failover and resharding.</b> A value is returned only if the read
 * lease still holds when the reads have completed (so they ran while the node's own lease held, and no new primary can
 * have accepted a write yet), and the hash slot's ownership word, read in the same batch, said the node still served
 * the hash slot (a node fences the word before a range it gives up can change owner).
 */
final class OneSidedGetProtocol
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;
    private static final long BACK_PRESSURED = TransportStatus.BACK_PRESSURED.sentinel();

    private final int readRetries;
    private final StepReads reads;
    private final ClientCounters counters;
    private final RequestSlots requestSlots;
    private final RpcProtocol rpc;
    private final DeferredPosts deferred;
    /** Per request slot (by index): what the transport calls when a bucket-step read, or the extent read, completes. */
    private final CompletionHandler[] bucketReadHandlers;
    private final CompletionHandler[] extentReadHandlers;

    /** The flyweights are not thread-safe (the extent one keeps a CRC32C state): one pair per thread. */
    private static final ThreadLocal<Flyweights> FLYWEIGHTS = ThreadLocal.withInitial(Flyweights::new);

    /**
     * @param readRetries    torn reads retried before a GET falls back to RPC.
     * @param immediateReads whether the transport completes reads on return ({@link Endpoint#readImmediate}).
     * @param requestSlots          the requests this protocol runs GETs on.
     * @param rpc            where a GET falls back to (no lease, torn reads exhausted, not in the pool).
     * @param deferred       where a back-pressured post waits for the conductor.
     */
    OneSidedGetProtocol(final int readRetries, final boolean immediateReads, final ClientCounters counters,
        final RequestSlots requestSlots, final RpcProtocol rpc, final DeferredPosts deferred)
    {
        this.readRetries = readRetries;
        this.reads = new StepReads(immediateReads);
        this.counters = counters;
        this.requestSlots = requestSlots;
        this.rpc = rpc;
        this.deferred = deferred;
        final int n = requestSlots.capacity();
        this.bucketReadHandlers = new CompletionHandler[n];
        this.extentReadHandlers = new CompletionHandler[n];
        for (int i = 0; i < n; i++)
        {
            final RequestSlot requestSlot = requestSlots.requestSlot(i);
            bucketReadHandlers[i] = (status, requestId) -> onBucketRead(requestSlot, status);
            extentReadHandlers[i] = (status, requestId) -> onExtentRead(requestSlot, status);
        }
    }

    /**
     * Post the first read or batch from a caller's thread, waiting while the endpoint is back-pressured; an async
     * request never waits: the conductor re-posts it.
     */
    void start(final RequestSlot requestSlot)
    {
        if (!requestSlot.session.readLease().holdsNow())
        {
            // No read lease on this node (never granted, or ended): ask the node, whose answer renews it.
            counters.increment(ClientCounter.GET_LEASE_RENEWALS);
            rpc.start(requestSlot);
            return;
        }
        if (!prepareCachedRead(requestSlot))
        {
            prepareBatch(requestSlot);
        }
        if (requestSlot.call != null)
        {
            resume(requestSlot);
            return;
        }
        while (true)
        {
            final long result = drive(requestSlot);
            if (result != BACK_PRESSURED)
            {
                if (result < 0)
                {
                    failUnposted(requestSlot, TransportStatus.fromSentinel(result));
                }
                return;
            }
            counters.increment(ClientCounter.BACK_PRESSURED_POSTS);
            if (System.nanoTime() - requestSlot.deadlineNanos > 0)
            {
                failUnposted(requestSlot, TransportStatus.TIMED_OUT);
                return;
            }
            LockSupport.parkNanos(1_000);
        }
    }

    /**
     * Post the request slot's current step without waiting (an async request's first step, the conductor's re-post of a
     * back-pressured one, the next step after a completion): a back-pressured post goes to the conductor.
     */
    void resume(final RequestSlot requestSlot)
    {
        final long result = drive(requestSlot);
        if (result == BACK_PRESSURED)
        {
            counters.increment(ClientCounter.BACK_PRESSURED_POSTS);
            deferred.defer(requestSlot, DeferredPosts.POST_READS);
        }
        else if (result < 0)
        {
            failUnposted(requestSlot, TransportStatus.fromSentinel(result));
        }
    }

    /**
     * Post the request slot's current step; while a step's reads all complete on return, finish it here and post the
     * next, in this loop rather than by recursion.
     *
     * @return {@link StepReads#POSTED} once the request slot is no longer this thread's (a step is in flight, or the
     *         request finished or went on by RPC), or the negative sentinel that refused a read of the current step
     *         (the request slot is still this thread's: retry, defer or {@link #failUnposted}).
     */
    private long drive(final RequestSlot requestSlot)
    {
        while (true)
        {
            final long result = reads.post(requestSlot);
            if (result != StepReads.COMPLETED_HERE)
            {
                return result;
            }
            if (!finishStep(requestSlot))
            {
                return StepReads.POSTED;
            }
        }
    }

    /**
     * Give up the reads not posted yet, as if each had completed with {@code status} (the request slot is this
     * thread's).
     */
    void failUnposted(final RequestSlot requestSlot, final TransportStatus status)
    {
        final int unposted = requestSlot.batchSize - requestSlot.batchPosted;
        requestSlot.batchPosted = requestSlot.batchSize;
        for (int i = 0; i < unposted; i++)
        {
            onReadComplete(requestSlot, status);
        }
    }

    void onBucketRead(final RequestSlot requestSlot, final TransportStatus status)
    {
        onReadComplete(requestSlot, status);
    }

    void onExtentRead(final RequestSlot requestSlot, final TransportStatus status)
    {
        onReadComplete(requestSlot, status);
    }

    private void prepareBatch(final RequestSlot requestSlot)
    {
        final NodeInfo node = requestSlot.session.info();
        final RemoteKey readKey = requestSlot.session.readKey();
        final PoolGeometry geometry = node.geometry();
        final long base = node.poolBase();
        final long primary = KeyHash.primaryBucket(requestSlot.hashedKey.hash(), geometry.bucketCount());
        final long secondary = KeyHash.secondaryBucket(requestSlot.hashedKey.hash(), geometry.bucketCount());
        requestSlot.batch[0].set(base + geometry.bucketOffset(primary), readKey, IndexBucketFlyweight.BUCKET_LENGTH,
            requestSlot.readBuffer, RequestSlot.PRIMARY_BUCKET_OFFSET, bucketReadHandlers[requestSlot.index]);
        requestSlot.batch[1].set(base + geometry.bucketOffset(secondary), readKey,
            IndexBucketFlyweight.BUCKET_LENGTH, requestSlot.readBuffer, RequestSlot.SECONDARY_BUCKET_OFFSET,
            bucketReadHandlers[requestSlot.index]);
        requestSlot.batch[2].set(base, readKey, RequestSlot.HEADER_READ_LENGTH, requestSlot.readBuffer,
            RequestSlot.HEADER_OFFSET, bucketReadHandlers[requestSlot.index]);
        requestSlot.batch[3].set(base + SlotOwnershipTable.poolOffsetOf(requestSlot.hashedKey.hashSlot()), readKey,
            SlotOwnershipTable.WORD_LENGTH, requestSlot.readBuffer, RequestSlot.OWNERSHIP_OFFSET, bucketReadHandlers[requestSlot.index]);
        requestSlot.batchSize = 4;
        requestSlot.batchPosted = 0;
        requestSlot.readFailure = null;
        requestSlot.phase = RequestSlot.PHASE_READ_BUCKETS;
        requestSlot.pendingReads.set(4);
    }

    /** A cached location: prepare the single extent read (caller's thread). False on a cache miss or cache off. */
    private boolean prepareCachedRead(final RequestSlot requestSlot)
    {
        final LocationCache cache = requestSlot.session.locationCache();
        if (!cache.enabled())
        {
            return false;
        }
        if (!cache.lookup(requestSlot.hashedKey.hash(), requestSlot))
        {
            counters.increment(ClientCounter.GET_CACHE_MISSES);
            return false;
        }
        prepareExtentRead(requestSlot, requestSlot.followedEntry, RequestSlot.PHASE_READ_CACHED);
        // The key's ownership word rides in the same batch: no extra round trip.
        final NodeInfo node = requestSlot.session.info();
        final RemoteKey readKey = requestSlot.session.readKey();
        requestSlot.batch[1].set(node.poolBase() + SlotOwnershipTable.poolOffsetOf(requestSlot.hashedKey.hashSlot()),
            readKey, SlotOwnershipTable.WORD_LENGTH, requestSlot.readBuffer, RequestSlot.OWNERSHIP_OFFSET,
            extentReadHandlers[requestSlot.index]);
        requestSlot.batchSize = 2;
        requestSlot.pendingReads.set(2);
        return true;
    }

    private void prepareExtentRead(final RequestSlot requestSlot, final long indexEntry, final int phase)
    {
        final NodeInfo node = requestSlot.session.info();
        final RemoteKey readKey = requestSlot.session.readKey();
        requestSlot.followedEntry = indexEntry;
        requestSlot.extentLength = IndexEntry.extentLength(indexEntry);
        requestSlot.batch[0].set(node.poolBase() + IndexEntry.extentOffset(indexEntry), readKey,
            requestSlot.extentLength, requestSlot.readBuffer, RequestSlot.EXTENT_OFFSET,
            extentReadHandlers[requestSlot.index]);
        requestSlot.batchSize = 1;
        requestSlot.batchPosted = 0;
        requestSlot.readFailure = null;
        requestSlot.phase = phase;
        requestSlot.pendingReads.set(1);
    }

    /**
     * One read of the current step finished (or was given up). The last one moves the state machine on, on this
     * thread. A failure can be recorded by a caller's thread (a refused post, a read done on return) while the
     * progress thread completes another read of the step, so the decision on a failed step must be thread-safe: the
     * count-down orders each recorded failure before the last decrement.
     */
    private void onReadComplete(final RequestSlot requestSlot, final TransportStatus status)
    {
        if (status != TransportStatus.OK && requestSlot.readFailure == null)
        {
            requestSlot.readFailure = status;
        }
        if (requestSlot.pendingReads.decrementAndGet() != 0)
        {
            return;
        }
        if (finishStep(requestSlot))
        {
            resume(requestSlot);
        }
    }

    /**
     * Every read of the current step completed: decide. Runs on the thread that completed the last one.
     *
     * @return true when the decision is another step of reads, prepared and not posted yet (the caller posts it);
     *         false when the request finished, or went on by RPC.
     */
    private boolean finishStep(final RequestSlot requestSlot)
    {
        final TransportStatus failure = requestSlot.readFailure;
        if (failure != null)
        {
            onReadFailed(requestSlot, failure);
            return false;
        }
        if (requestSlot.phase == RequestSlot.PHASE_READ_BUCKETS)
        {
            return onBucketsRead(requestSlot);
        }
        if (requestSlot.phase == RequestSlot.PHASE_READ_CACHED)
        {
            return onCachedExtentRead(requestSlot);
        }
        return onExtentRead(requestSlot);
    }

    private void onReadFailed(final RequestSlot requestSlot, final TransportStatus status)
    {
        requestSlot.phase = RequestSlot.PHASE_IDLE;
        switch (status)
        {
            case PEER_FAILED:
            case CLOSED:
            case NOT_CONNECTED:
                requestSlot.fail(KvError.CONNECTION_FAILED, "one-sided read failed: " + status.description() + " (node " +
                    requestSlot.session.info().nodeId() + " at " + requestSlot.session.info().dataAddress() + ")");
                requestSlots.complete(requestSlot);
                break;
            case TIMED_OUT:
                requestSlot.fail(KvError.TIMED_OUT, "one-sided read timed out (node " + requestSlot.session.info().nodeId() + ")");
                requestSlots.complete(requestSlot);
                break;
            default:
                // The region is gone or moved (restart, re-registration): the server can still answer.
                fallback(requestSlot);
                break;
        }
    }

    private boolean onBucketsRead(final RequestSlot requestSlot)
    {
        final NodeInfo node = requestSlot.session.info();
        final int header = RequestSlot.HEADER_OFFSET;
        if (requestSlot.readBuffer.getLong(header + PoolHeaderFlyweight.MAGIC_OFFSET, ORDER) != PoolHeaderFlyweight.MAGIC ||
            requestSlot.readBuffer.getLong(header + PoolHeaderFlyweight.EPOCH_OFFSET, ORDER) != node.epoch())
        {
            // The pool was rebuilt since the handshake: what the buckets say cannot be trusted.
            requestSlot.session.markPoolStale();
            fallback(requestSlot);
            return false;
        }
        final int layoutVersion = requestSlot.readBuffer.getInt(header + PoolHeaderFlyweight.VERSION_OFFSET, ORDER);
        if (layoutVersion != PoolHeaderFlyweight.LAYOUT_VERSION)
        {
            // Extents laid out otherwise would never verify (or, worse, be misread): ask the server instead.
            requestSlot.session.markLayoutUnsupported(layoutVersion);
            fallback(requestSlot);
            return false;
        }
        if (!ownershipServes(requestSlot))
        {
            refuseOwnership(requestSlot);
            return false;
        }
        requestSlot.poolComplete =
            (requestSlot.readBuffer.getInt(header + PoolHeaderFlyweight.FLAGS_OFFSET, ORDER) &
            PoolHeaderFlyweight.FLAG_COMPLETE) != 0;

        final int fingerprint = KeyHash.fingerprint(requestSlot.hashedKey.hash());
        final PoolGeometry geometry = node.geometry();
        final IndexBucketFlyweight bucket = FLYWEIGHTS.get().bucket;
        int count = 0;
        count = collect(requestSlot, bucket, RequestSlot.PRIMARY_BUCKET_OFFSET, fingerprint, geometry, count);
        count = collect(requestSlot, bucket, RequestSlot.SECONDARY_BUCKET_OFFSET, fingerprint, geometry, count);
        requestSlot.candidateCount = count;
        requestSlot.candidateNext = 0;
        return nextCandidate(requestSlot);
    }

    private static int collect(final RequestSlot requestSlot, final IndexBucketFlyweight bucket, final int bucketOffset,
        final int fingerprint, final PoolGeometry geometry, final int from)
    {
        int count = from;
        bucket.wrap(requestSlot.readBuffer, bucketOffset);
        for (int i = 0; i < IndexBucketFlyweight.ENTRY_COUNT; i++)
        {
            final long s = bucket.entry(i);
            if (s != IndexEntry.EMPTY && IndexEntry.fingerprint(s) == fingerprint && IndexEntry.isValid(s, geometry))
            {
                requestSlot.candidates[count++] = s;
            }
        }
        return count;
    }

    /** True when the next candidate's extent read is prepared (to post); false when the request went on otherwise. */
    private boolean nextCandidate(final RequestSlot requestSlot)
    {
        if (requestSlot.candidateNext >= requestSlot.candidateCount)
        {
            return noMatch(requestSlot);
        }
        final long indexEntry = requestSlot.candidates[requestSlot.candidateNext++];
        if (IndexEntry.extentLength(indexEntry) > requestSlot.extentCapacity)
        {
            fallback(requestSlot);
            return false;
        }
        prepareExtentRead(requestSlot, indexEntry, RequestSlot.PHASE_READ_EXTENT);
        return true;
    }

    /**
     * The single read of a cached location finished: the value, or forget the location and prepare the full
     * protocol's batch (true: to post).
     */
    private boolean onCachedExtentRead(final RequestSlot requestSlot)
    {
        if (!ownershipServes(requestSlot))
        {
            refuseOwnership(requestSlot);
            return false;
        }
        final ValueExtentFlyweight extent = FLYWEIGHTS.get().extent;
        extent.wrap(requestSlot.readBuffer, RequestSlot.EXTENT_OFFSET, requestSlot.extentLength);
        if (extent.verifyCurrent(requestSlot.key, 0, requestSlot.keyLength, requestSlot.expectedVersion) == ExtentStatus.OK)
        {
            counters.increment(ClientCounter.GET_CACHE_HITS);
            succeed(requestSlot, extent);
            return false;
        }
        // Superseded, deleted, evicted, reused or torn: whatever it was, the index knows better.
        counters.increment(ClientCounter.GET_CACHE_INVALIDATIONS);
        requestSlot.session.locationCache().forget(requestSlot.hashedKey.hash(), requestSlot.followedEntry);
        prepareBatch(requestSlot);
        return true;
    }

    /** The extent in {@code extent} verified: the value, if the read lease still holds. */
    private void succeed(final RequestSlot requestSlot, final ValueExtentFlyweight extent)
    {
        if (!requestSlot.session.readLease().holdsNow())
        {
            // The lease ended while the reads were in flight: the node may have been replaced before they ran.
            counters.increment(ClientCounter.GET_LEASE_RENEWALS);
            requestSlot.phase = RequestSlot.PHASE_IDLE;
            rpc.startFromWorker(requestSlot);
            return;
        }
        final long expiry = extent.expiryMillis();
        if (expiry != 0)
        {
            // A value with an expiry: decided on this reader's clock with the lease's drift bound (ExpiryCheck);
            // only a value surely live is returned, one surely expired is absent, the band between asks the node.
            switch (ExpiryCheck.decide(expiry, extent.dataVersion(), ExpiryCheck.nowMillis(),
                ReadLease.MAX_CLOCK_DRIFT))
            {
                case LIVE -> counters.increment(ClientCounter.EXPIRY_ONE_SIDED_LIVE);
                case EXPIRED ->
                {
                    counters.increment(ClientCounter.EXPIRY_ONE_SIDED_EXPIRED);
                    requestSlot.succeed(Status.NOT_FOUND, null, null);
                    requestSlots.complete(requestSlot);
                    return;
                }
                default ->
                {
                    counters.increment(ClientCounter.EXPIRY_UNCERTAIN);
                    requestSlot.phase = RequestSlot.PHASE_IDLE;
                    rpc.startFromWorker(requestSlot);
                    return;
                }
            }
        }
        counters.increment(ClientCounter.GET_ONE_SIDED_HITS);
        requestSlot.resultVersion = extent.dataVersion();
        requestSlot.succeedWithValue(requestSlot.readBuffer, extent.valueIndex(), extent.valueLength());
        requestSlots.complete(requestSlot);
    }

    /** A candidate's extent was read: the value, or true when the next read (candidate or retry) is prepared. */
    private boolean onExtentRead(final RequestSlot requestSlot)
    {
        final ValueExtentFlyweight extent = FLYWEIGHTS.get().extent;
        extent.wrap(requestSlot.readBuffer, RequestSlot.EXTENT_OFFSET, requestSlot.extentLength);
        final ExtentStatus status = extent.verify(requestSlot.key, 0, requestSlot.keyLength);
        switch (status)
        {
            case OK:
                if (extent.isLive())
                {
                    // Only a LIVE extent is worth remembering: a RETIRED one was superseded since the bucket read.
                    requestSlot.session.locationCache().remember(requestSlot.hashedKey.hash(), requestSlot.followedEntry, extent.version());
                }
                succeed(requestSlot, extent);
                return false;
            case KEY_MISMATCH:
                // A fingerprint collision, or an entry read before the writer replaced it whose extent has since been
                // reused for another key: only a fresh pass can tell, so a miss after this is not definitive.
                requestSlot.keyMismatchSeen = true;
                return nextCandidate(requestSlot);
            default:
                // Torn: the extent changed while we read it (or the entry we followed is already stale).
                return retryOrFallback(requestSlot);
        }
    }

    /** True when the retry's batch is prepared (to post); false after falling back to RPC. */
    private boolean retryOrFallback(final RequestSlot requestSlot)
    {
        counters.increment(ClientCounter.GET_TORN_RETRIES);
        if (requestSlot.tornRetries++ < readRetries)
        {
            requestSlot.keyMismatchSeen = false;
            prepareBatch(requestSlot);
            return true;
        }
        fallback(requestSlot);
        return false;
    }

    /** No candidate held the key: a definitive miss, a lookup by RPC, or (true) a retry's batch to post. */
    private boolean noMatch(final RequestSlot requestSlot)
    {
        if (requestSlot.keyMismatchSeen)
        {
            return retryOrFallback(requestSlot);
        }
        if (requestSlot.poolComplete)
        {
            counters.increment(ClientCounter.GET_MISSES);
            requestSlot.succeed(Status.NOT_FOUND, null, null);
            requestSlots.complete(requestSlot);
        }
        else
        {
            counters.increment(ClientCounter.GET_MISS_LOOKUPS);
            rpc.startFromWorker(requestSlot);
        }
        return false;
    }

    /**
     * Whether the key's hash slot ownership word, read in this step's batch, lets the pool answer: LIVE or MIGRATING,
     * for this hash slot, at the client map's epoch or newer. A few loads; never allocates.
     */
    private static boolean ownershipServes(final RequestSlot requestSlot)
    {
        return SlotOwnershipTable.serves(SlotOwnershipTable.readWord(requestSlot.readBuffer, RequestSlot.OWNERSHIP_OFFSET),
            requestSlot.hashedKey.hashSlot(), requestSlot.rangeEpoch);
    }

    /** The node no longer serves the hash slot from its pool: ask it (a WRONG_NODE answer re-routes and refreshes). */
    private void refuseOwnership(final RequestSlot requestSlot)
    {
        counters.increment(ClientCounter.GET_OWNERSHIP_REFUSALS);
        fallback(requestSlot);
    }

    private void fallback(final RequestSlot requestSlot)
    {
        counters.increment(ClientCounter.GET_FALLBACKS);
        requestSlot.phase = RequestSlot.PHASE_IDLE;
        rpc.startFromWorker(requestSlot);
    }

    /** The flyweights of one thread. */
    private static final class Flyweights
    {
        final IndexBucketFlyweight bucket = new IndexBucketFlyweight();
        final ValueExtentFlyweight extent = new ValueExtentFlyweight();
    }
}

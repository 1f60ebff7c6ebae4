package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvError;
import io.rdmakv.protocol.layout.ExtentStatus;
import io.rdmakv.protocol.layout.IndexBucketFlyweight;
import io.rdmakv.protocol.layout.IndexSlot;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import io.rdmakv.protocol.layout.SlotOwnershipTable;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;
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
 *     │ yes: read the extent + the slot's ownership word ──── ONE batch, ONE round trip
 *     │        word not LIVE/MIGRATING at the map's epoch ──────────────────────────► RPC GET (re-route)
 *     │        verifyCurrent: lengths + CRC32C + key + version + state LIVE(version):
 *     │          OK ──► value (cache hit)
 *     │          anything else (RETIRED, VERSION_MISMATCH, KEY_MISMATCH, torn) ──► forget it (invalidation) ──┐
 *     ▼ no (cache miss)                                                                                       │
 *   read primary bucket + secondary bucket + pool header + the slot's ownership word (one readBatch)  ◄──┘
 *               │ header magic/epoch differ ─────────────────────────────────────────► RPC GET (fallback)
 *               │ layout version not ours ──► this node's GETs go by RPC ─────────────► RPC GET (fallback)
 *               │ ownership word not LIVE/MIGRATING at the map's epoch ──────────────► RPC GET (re-route)
 *               ▼
 *             candidates = valid slots whose fingerprint matches, primary bucket first
 *               │ none left ──► a key mismatched on the way ? retry from the start (as torn)
 *               │               : pool COMPLETE ? NOT_FOUND (miss) : RPC GET (miss lookup)
 *               ▼
 *             read the candidate's extent (length from the slot) ── larger than the buffer ──► RPC GET (fallback)
 *               ▼
 *             verify lengths + CRC32C + key:  OK ──► value (hit); remember the location if the extent is LIVE
 *                                             KEY_MISMATCH ──► next candidate
 *                                             TORN_CRC / BAD_LENGTH ──► retry from the start, at most readRetries
 *                                                                       times, then RPC GET (fallback)
 * </pre>
 *
 * <p><b>Why a cached read is linearizable.</b> The server's single writer, whenever it supersedes a published extent
 * (update, delete, eviction), first stores RETIRED into the old extent's state word, then publishes the new slot (a
 * release store, so the mark is visible to anyone who can see the new slot), and only then answers the writer's
 * client. Take the write's linearization point as the slot store. A cached read that sees LIVE(version) read the
 * state word before the retire mark became visible, hence before the slot store: at that instant the extent's value
 * was the key's committed value, and the read returns it (the rest of the extent is intact: it is not reused before
 * the grace period, and if a slow read outlived it, CRC, key and version catch the new bytes). A read that starts
 * after a write was acknowledged sees the mark, drops the entry and runs the full protocol, which finds the new slot.
 * The version check makes an entry useless once its extent is reused, even for the same key, and because versions
 * carry the pool epoch in their high bits, a pool rebuilt with the same layout never matches an old entry either.
 * Node restarts also end the session, and with it the cache. The full protocol itself is unchanged: it is
 * linearized at its bucket read.
 *
 * <p>The first read (or batch) is posted by the caller's thread; every continuation runs on the worker's progress
 * thread and never blocks it: a back-pressured post is handed to the {@link ClientConductor}, which re-posts it on a
 * later duty cycle. The progress thread is the only one that changes a {@link LocationCache}. The only allocation per
 * GET is the returned value.
 *
 * <p><b>Why a one-sided read stays correct across failover and resharding.</b> A value is returned only if the read
 * lease still holds when the reads have completed (so they ran while the node's own lease held, and no new primary can
 * have accepted a write yet), and the slot's ownership word, read in the same batch, said the node still served the
 * slot (a node fences the word before a range it gives up can change owner).
 */
final class OneSidedGetProtocol
{
    private static final ByteOrder ORDER = ByteOrder.LITTLE_ENDIAN;

    private final int readRetries;
    private final ClientCounters counters;
    private RequestSlots slots;
    private RpcProtocol rpc;
    private ClientConductor conductor;

    // Progress-thread only: the flyweights are not thread-safe (the extent one keeps a CRC32C state).
    private final IndexBucketFlyweight bucket = new IndexBucketFlyweight();
    private final ValueExtentFlyweight extent = new ValueExtentFlyweight();

    OneSidedGetProtocol(final int readRetries, final ClientCounters counters)
    {
        this.readRetries = readRetries;
        this.counters = counters;
    }

    void wire(final RequestSlots slots, final RpcProtocol rpc, final ClientConductor conductor)
    {
        this.slots = slots;
        this.rpc = rpc;
        this.conductor = conductor;
    }

    /**
     * Post the first read or batch from a caller's thread, waiting while the endpoint is back-pressured; an async
     * request never waits: the conductor re-posts it.
     */
    void start(final RequestSlot slot)
    {
        if (!slot.session.readLease().holds(ReadLease.now()))
        {
            // No read lease on this node (never granted, or ended): ask the node, whose answer renews it.
            counters.increment(ClientCounter.GET_LEASE_RENEWALS);
            rpc.start(slot);
            return;
        }
        if (!prepareCachedRead(slot))
        {
            prepareBatch(slot);
        }
        if (slot.call != null)
        {
            resume(slot);
            return;
        }
        while (true)
        {
            final TransportStatus status = postRemaining(slot);
            if (status != TransportStatus.BACK_PRESSURED)
            {
                if (status != TransportStatus.OK)
                {
                    failUnposted(slot, status);
                }
                return;
            }
            counters.increment(ClientCounter.BACK_PRESSURED_POSTS);
            if (System.nanoTime() - slot.deadlineNanos > 0)
            {
                failUnposted(slot, TransportStatus.TIMED_OUT);
                return;
            }
            LockSupport.parkNanos(1_000);
        }
    }

    /** Re-post a back-pressured batch or extent read (conductor, progress thread). */
    void resume(final RequestSlot slot)
    {
        final TransportStatus status = postRemaining(slot);
        if (status == TransportStatus.BACK_PRESSURED)
        {
            counters.increment(ClientCounter.BACK_PRESSURED_POSTS);
            conductor.defer(slot, ClientConductor.ACTION_POST_READS);
        }
        else if (status != TransportStatus.OK)
        {
            failUnposted(slot, status);
        }
    }

    /** Give up the reads not posted yet, as if each had completed with {@code status}. */
    void failUnposted(final RequestSlot slot, final TransportStatus status)
    {
        final int unposted = slot.batchSize - slot.batchPosted;
        slot.batchPosted = slot.batchSize;
        for (int i = 0; i < unposted; i++)
        {
            onReadComplete(slot, status);
        }
    }

    void onBucketRead(final RequestSlot slot, final TransportStatus status)
    {
        onReadComplete(slot, status);
    }

    void onExtentRead(final RequestSlot slot, final TransportStatus status)
    {
        onReadComplete(slot, status);
    }

    private void prepareBatch(final RequestSlot slot)
    {
        final NodeInfo node = slot.session.info();
        final PoolGeometry geometry = node.geometry();
        final long base = node.poolBase();
        final long primary = KeyHash.primaryBucket(slot.hash, geometry.bucketCount());
        final long secondary = KeyHash.secondaryBucket(slot.hash, geometry.bucketCount());
        slot.batch[0].set(base + geometry.bucketOffset(primary), node.remoteKey(), IndexBucketFlyweight.BUCKET_LENGTH,
            slot.readBuffer, RequestSlot.PRIMARY_BUCKET_OFFSET, slot.bucketReadHandler);
        slot.batch[1].set(base + geometry.bucketOffset(secondary), node.remoteKey(),
            IndexBucketFlyweight.BUCKET_LENGTH, slot.readBuffer, RequestSlot.SECONDARY_BUCKET_OFFSET,
            slot.bucketReadHandler);
        slot.batch[2].set(base, node.remoteKey(), RequestSlot.HEADER_READ_LENGTH, slot.readBuffer,
            RequestSlot.HEADER_OFFSET, slot.bucketReadHandler);
        slot.batch[3].set(base + SlotOwnershipTable.poolOffsetOf(KeyHash.clusterSlot(slot.hash)), node.remoteKey(),
            SlotOwnershipTable.WORD_LENGTH, slot.readBuffer, RequestSlot.OWNERSHIP_OFFSET, slot.bucketReadHandler);
        slot.batchSize = 4;
        slot.batchPosted = 0;
        slot.readFailure = null;
        slot.phase = RequestSlot.PHASE_READ_BUCKETS;
        slot.pendingReads.set(4);
    }

    /** A cached location: prepare the single extent read (caller's thread). False on a cache miss or cache off. */
    private boolean prepareCachedRead(final RequestSlot slot)
    {
        final LocationCache cache = slot.session.locationCache();
        if (!cache.enabled())
        {
            return false;
        }
        if (!cache.lookup(slot.hash, slot))
        {
            counters.increment(ClientCounter.GET_CACHE_MISSES);
            return false;
        }
        prepareExtentRead(slot, slot.followedSlot, RequestSlot.PHASE_READ_CACHED);
        // The key's ownership word rides in the same batch: no extra round trip.
        final NodeInfo node = slot.session.info();
        slot.batch[1].set(node.poolBase() + SlotOwnershipTable.poolOffsetOf(KeyHash.clusterSlot(slot.hash)),
            node.remoteKey(), SlotOwnershipTable.WORD_LENGTH, slot.readBuffer, RequestSlot.OWNERSHIP_OFFSET,
            slot.extentReadHandler);
        slot.batchSize = 2;
        slot.pendingReads.set(2);
        return true;
    }

    private void prepareExtentRead(final RequestSlot slot, final long indexSlot, final int phase)
    {
        final NodeInfo node = slot.session.info();
        slot.followedSlot = indexSlot;
        slot.extentLength = IndexSlot.extentLength(indexSlot);
        slot.batch[0].set(node.poolBase() + IndexSlot.extentOffset(indexSlot), node.remoteKey(), slot.extentLength,
            slot.readBuffer, RequestSlot.EXTENT_OFFSET, slot.extentReadHandler);
        slot.batchSize = 1;
        slot.batchPosted = 0;
        slot.readFailure = null;
        slot.phase = phase;
        slot.pendingReads.set(1);
    }

    /**
     * Post what is left of the slot's batch: the whole batch through {@link Endpoint#readBatch} first, then one by
     * one, so the refusal of a single read can be told apart.
     *
     * <p>Once the last read is accepted the slot belongs to the progress thread (the reads may already have completed
     * and moved the slot on), so nothing here writes to the slot after that: progress is counted in a local, and
     * written back only when something stays unposted, which keeps the step from completing.
     *
     * @return OK when all are posted, BACK_PRESSURED to try again later, or the status that refused a read.
     */
    private TransportStatus postRemaining(final RequestSlot slot)
    {
        final Endpoint endpoint = slot.session.endpoint();
        final int size = slot.batchSize;
        int posted = slot.batchPosted;
        if (posted == 0 && size > 1)
        {
            posted = endpoint.readBatch(slot.batch, size);
            if (posted == size)
            {
                return TransportStatus.OK;
            }
        }
        while (posted < size)
        {
            final Endpoint.ReadRequest r = slot.batch[posted];
            final long id = endpoint.read(r.remoteAddress, r.remoteKey, r.length, r.destination, r.destinationOffset,
                r.handler);
            if (id < 0)
            {
                slot.batchPosted = posted;
                return TransportStatus.fromSentinel(id);
            }
            posted++;
        }
        return TransportStatus.OK;
    }

    /**
     * One read of the current step finished (or was given up). The last one moves the state machine on. A failure can
     * be recorded by a caller's thread (a refused post), so the decision on a failed step must be thread-safe; a step
     * whose reads all succeeded only ever finishes on the progress thread.
     */
    private void onReadComplete(final RequestSlot slot, final TransportStatus status)
    {
        if (status != TransportStatus.OK && slot.readFailure == null)
        {
            slot.readFailure = status;
        }
        if (slot.pendingReads.decrementAndGet() != 0)
        {
            return;
        }
        final TransportStatus failure = slot.readFailure;
        if (failure != null)
        {
            onReadFailed(slot, failure);
        }
        else if (slot.phase == RequestSlot.PHASE_READ_BUCKETS)
        {
            onBucketsRead(slot);
        }
        else if (slot.phase == RequestSlot.PHASE_READ_CACHED)
        {
            onCachedExtentRead(slot);
        }
        else
        {
            onExtentRead(slot);
        }
    }

    private void onReadFailed(final RequestSlot slot, final TransportStatus status)
    {
        slot.phase = RequestSlot.PHASE_IDLE;
        switch (status)
        {
            case PEER_FAILED:
            case CLOSED:
            case NOT_CONNECTED:
                slot.fail(KvError.CONNECTION_FAILED, "one-sided read failed: " + status.description() + " (node " +
                    slot.session.info().nodeId() + " at " + slot.session.info().dataAddress() + ")");
                slots.complete(slot);
                break;
            case TIMED_OUT:
                slot.fail(KvError.TIMED_OUT, "one-sided read timed out (node " + slot.session.info().nodeId() + ")");
                slots.complete(slot);
                break;
            default:
                // The region is gone or moved (restart, re-registration): the server can still answer.
                fallback(slot);
                break;
        }
    }

    private void onBucketsRead(final RequestSlot slot)
    {
        final NodeInfo node = slot.session.info();
        final int header = RequestSlot.HEADER_OFFSET;
        if (slot.readBuffer.getLong(header + PoolHeaderFlyweight.MAGIC_OFFSET, ORDER) != PoolHeaderFlyweight.MAGIC ||
            slot.readBuffer.getLong(header + PoolHeaderFlyweight.EPOCH_OFFSET, ORDER) != node.epoch())
        {
            // The pool was rebuilt since the handshake: what the buckets say cannot be trusted.
            slot.session.markPoolStale();
            fallback(slot);
            return;
        }
        final int layoutVersion = slot.readBuffer.getInt(header + PoolHeaderFlyweight.VERSION_OFFSET, ORDER);
        if (layoutVersion != PoolHeaderFlyweight.LAYOUT_VERSION)
        {
            // Extents laid out otherwise would never verify (or, worse, be misread): ask the server instead.
            slot.session.markLayoutUnsupported(layoutVersion);
            fallback(slot);
            return;
        }
        if (!ownershipServes(slot))
        {
            refuseOwnership(slot);
            return;
        }
        slot.poolComplete =
            (slot.readBuffer.getInt(header + PoolHeaderFlyweight.FLAGS_OFFSET, ORDER) &
            PoolHeaderFlyweight.FLAG_COMPLETE) != 0;

        final int fingerprint = KeyHash.fingerprint(slot.hash);
        final PoolGeometry geometry = node.geometry();
        int count = 0;
        count = collect(slot, RequestSlot.PRIMARY_BUCKET_OFFSET, fingerprint, geometry, count);
        count = collect(slot, RequestSlot.SECONDARY_BUCKET_OFFSET, fingerprint, geometry, count);
        slot.candidateCount = count;
        slot.candidateNext = 0;
        nextCandidate(slot);
    }

    private int collect(
        final RequestSlot slot, final int bucketOffset, final int fingerprint, final PoolGeometry geometry, final int from)
    {
        int count = from;
        bucket.wrap(slot.readBuffer, bucketOffset);
        for (int i = 0; i < IndexBucketFlyweight.SLOT_COUNT; i++)
        {
            final long s = bucket.slot(i);
            if (s != IndexSlot.EMPTY && IndexSlot.fingerprint(s) == fingerprint && IndexSlot.isValid(s, geometry))
            {
                slot.candidates[count++] = s;
            }
        }
        return count;
    }

    private void nextCandidate(final RequestSlot slot)
    {
        if (slot.candidateNext >= slot.candidateCount)
        {
            noMatch(slot);
            return;
        }
        final long indexSlot = slot.candidates[slot.candidateNext++];
        if (IndexSlot.extentLength(indexSlot) > slot.extentCapacity)
        {
            fallback(slot);
            return;
        }
        prepareExtentRead(slot, indexSlot, RequestSlot.PHASE_READ_EXTENT);
        resume(slot);
    }

    /** The single read of a cached location finished: the value, or forget the location and run the full protocol. */
    private void onCachedExtentRead(final RequestSlot slot)
    {
        if (!ownershipServes(slot))
        {
            refuseOwnership(slot);
            return;
        }
        extent.wrap(slot.readBuffer, RequestSlot.EXTENT_OFFSET, slot.extentLength);
        if (extent.verifyCurrent(slot.key, 0, slot.keyLength, slot.expectedVersion) == ExtentStatus.OK)
        {
            counters.increment(ClientCounter.GET_CACHE_HITS);
            succeed(slot);
            return;
        }
        // Superseded, deleted, evicted, reused or torn: whatever it was, the index knows better.
        counters.increment(ClientCounter.GET_CACHE_INVALIDATIONS);
        slot.session.locationCache().forget(slot.hash, slot.followedSlot);
        prepareBatch(slot);
        resume(slot);
    }

    private void succeed(final RequestSlot slot)
    {
        if (!slot.session.readLease().holds(ReadLease.now()))
        {
            // The lease ended while the reads were in flight: the node may have been replaced before they ran.
            counters.increment(ClientCounter.GET_LEASE_RENEWALS);
            slot.phase = RequestSlot.PHASE_IDLE;
            rpc.startFromWorker(slot);
            return;
        }
        counters.increment(ClientCounter.GET_ONE_SIDED_HITS);
        slot.succeedWithValue(slot.readBuffer, extent.valueIndex(), extent.valueLength());
        slots.complete(slot);
    }

    private void onExtentRead(final RequestSlot slot)
    {
        extent.wrap(slot.readBuffer, RequestSlot.EXTENT_OFFSET, slot.extentLength);
        final ExtentStatus status = extent.verify(slot.key, 0, slot.keyLength);
        switch (status)
        {
            case OK:
                if (extent.isLive())
                {
                    // Only a LIVE extent is worth remembering: a RETIRED one was superseded since the bucket read.
                    slot.session.locationCache().remember(slot.hash, slot.followedSlot, extent.version());
                }
                succeed(slot);
                break;
            case KEY_MISMATCH:
                // A fingerprint collision, or a slot read before the writer replaced it whose extent has since been
                // reused for another key: only a fresh pass can tell, so a miss after this is not definitive.
                slot.keyMismatchSeen = true;
                nextCandidate(slot);
                break;
            default:
                // Torn: the extent changed while we read it (or the slot we followed is already stale).
                retryOrFallback(slot);
                break;
        }
    }

    private void retryOrFallback(final RequestSlot slot)
    {
        counters.increment(ClientCounter.GET_TORN_RETRIES);
        if (slot.tornRetries++ < readRetries)
        {
            slot.keyMismatchSeen = false;
            prepareBatch(slot);
            resume(slot);
        }
        else
        {
            fallback(slot);
        }
    }

    private void noMatch(final RequestSlot slot)
    {
        if (slot.keyMismatchSeen)
        {
            retryOrFallback(slot);
        }
        else if (slot.poolComplete)
        {
            counters.increment(ClientCounter.GET_MISSES);
            slot.succeed(Status.NOT_FOUND, null, null);
            slots.complete(slot);
        }
        else
        {
            counters.increment(ClientCounter.GET_MISS_LOOKUPS);
            rpc.startFromWorker(slot);
        }
    }

    /**
     * Whether the key's slot ownership word, read in this step's batch, lets the pool answer: LIVE or MIGRATING, for
     * this slot, at the client map's epoch or newer. A few loads; never allocates.
     */
    private static boolean ownershipServes(final RequestSlot slot)
    {
        final int clusterSlot = KeyHash.clusterSlot(slot.hash);
        return SlotOwnershipTable.serves(SlotOwnershipTable.readWord(slot.readBuffer, RequestSlot.OWNERSHIP_OFFSET),
            clusterSlot, slot.session.rangeEpoch(clusterSlot));
    }

    /** The node no longer serves the slot from its pool: ask it (a WRONG_NODE answer re-routes and refreshes). */
    private void refuseOwnership(final RequestSlot slot)
    {
        counters.increment(ClientCounter.GET_OWNERSHIP_REFUSALS);
        fallback(slot);
    }

    private void fallback(final RequestSlot slot)
    {
        counters.increment(ClientCounter.GET_FALLBACKS);
        slot.phase = RequestSlot.PHASE_IDLE;
        rpc.startFromWorker(slot);
    }
}

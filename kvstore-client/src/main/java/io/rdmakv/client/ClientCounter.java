package io.rdmakv.client;

/**
 * The client's counters, as an enum of descriptors (Aeron style): stable names for {@link KvStats} and the CLI.
 */
public enum ClientCounter
{
    /** GETs answered by one-sided reads alone (value found and verified), cache hits included. */
    GET_ONE_SIDED_HITS("get.oneSided.hits"),
    /**
     * One-sided GETs done in a single read: the key's location was cached and the extent read there verified as its
     * current value (key, version, CRC, state LIVE). A subset of {@link #GET_ONE_SIDED_HITS}.
     */
    GET_CACHE_HITS("get.cache.hits"),
    /** One-sided GETs whose key had no cached location (cache on): the full protocol ran (buckets, then extent). */
    GET_CACHE_MISSES("get.cache.misses"),
    /**
     * Cached locations dropped because the single read did not verify (the value was superseded, deleted or
     * evicted, the extent reused, or torn); the GET then ran the full protocol.
     */
    GET_CACHE_INVALIDATIONS("get.cache.invalidations"),
    /** Torn one-sided reads detected (CRC or length mismatch) and retried by re-reading the buckets. */
    GET_TORN_RETRIES("get.oneSided.tornRetries"),
    /** One-sided GETs that gave up and asked the server (retries exhausted, extent too large, stale pool, read error). */
    GET_FALLBACKS("get.oneSided.fallbacks"),
    /**
     * One-sided GETs not answered from the pool because the slot's ownership word read with it was not LIVE (or
     * MIGRATING) at the client map's epoch or newer: the node gave the slot up; the GET went to the node by RPC.
     */
    GET_OWNERSHIP_REFUSALS("get.oneSided.ownershipRefusals"),
    /**
     * GETs that found no read lease on their node (never granted, or expired on the client's clock) and went by RPC,
     * whose answer renews the lease.
     */
    GET_LEASE_RENEWALS("get.oneSided.leaseRenewals"),
    /** One-sided misses that were definitive because the pool holds every key (header COMPLETE). */
    GET_MISSES("get.oneSided.misses"),
    /** One-sided misses on a pool that does not hold every key, so RocksDB was asked by RPC. */
    GET_MISS_LOOKUPS("get.oneSided.missLookups"),
    /** Requests sent to a server (GET, PUT, DELETE, STATS), including fallbacks and retries after redirects. */
    RPCS("rpc.requests"),
    /** WRONG_NODE redirects followed. */
    REDIRECTS("rpc.redirects"),
    /** Responses that matched no waiting request (arrived after a timeout). */
    STALE_RESPONSES("rpc.staleResponses"),
    /** Posts the transport back-pressured (no credit, pending queue full), waited for and retried: never failures. */
    BACK_PRESSURED_POSTS("transport.backPressuredPosts"),
    /**
     * Synchronous requests completed on their own caller's thread, which drove the worker's progress while it waited
     * (caller-driven progress, verbs): no hand-off from the progress thread, no wake-up of the caller.
     */
    CALLER_COMPLETIONS("progress.callerCompletions"),
    /**
     * Synchronous requests answered while their caller waited by yielding, not parked (a worker callers cannot drive,
     * tcp: the event loop completes the request and the caller sees it with no unpark; {@code RequestSlots}).
     */
    CALLER_YIELD_COMPLETIONS("progress.yieldCompletions"),
    /**
     * Synchronous requests sent and answered on a caller lane (tcp, {@code KvClientBuilder.callerLanes}): the caller
     * wrote the request and read its answer itself, woken by the kernel, with no hand-off through the event loop.
     */
    LANE_REQUESTS("rpc.laneRequests"),
    /** Caller lanes opened (each a connection of its own to a node, with a handshake and an ATTACH). */
    LANES_OPENED("rpc.lanesOpened"),
    /** Requests that failed (any error, including timeouts). */
    FAILURES("requests.failed"),
    /** Requests that timed out. */
    TIMEOUTS("requests.timedOut"),
    /** Asynchronous requests that found every in-flight slot busy and waited in the client's queue. */
    QUEUED_REQUESTS("requests.queued"),
    /** Asynchronous requests refused at once because the client's queue was full (back-pressure failures). */
    QUEUE_FULL_REJECTIONS("requests.rejectedQueueFull"),
    /**
     * One-sided GETs of a value with an expiry returned one-sided: surely live on the node's clock by the reader's
     * clock and the drift bound ({@code ExpiryCheck}). A subset of {@link #GET_ONE_SIDED_HITS}.
     */
    EXPIRY_ONE_SIDED_LIVE("expiry.oneSidedLive"),
    /** One-sided GETs answered absent because the value they found had surely expired on the node's clock. */
    EXPIRY_ONE_SIDED_EXPIRED("expiry.oneSidedExpired"),
    /** One-sided GETs of a value within the expiry's uncertainty band: sent to the node by RPC, its clock decides. */
    EXPIRY_UNCERTAIN("expiry.uncertainRpc");

    private final String label;

    ClientCounter(final String label)
    {
        this.label = label;
    }

    /**
     * The stable name used in {@link KvStats} and printed by the CLI.
     *
     * @return e.g. {@code get.oneSided.hits}.
     */
    public String label()
    {
        return label;
    }
}

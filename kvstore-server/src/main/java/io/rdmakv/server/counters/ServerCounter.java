package io.rdmakv.server.counters;

/**
 * The server's counters as a stable enum of descriptors (Aeron style): the id never changes, the label is what
 * STATS prints. Gauges (current values) and totals share the same storage.
 */
public enum ServerCounter
{
    PUTS(1, "puts"),
    DELETES(2, "deletes"),
    GETS_RPC(3, "gets.rpc"),
    GETS_RPC_FROM_POOL(4, "gets.rpc.pool"),
    GETS_RPC_FROM_STORE(5, "gets.rpc.store"),
    GETS_RPC_NOT_FOUND(6, "gets.rpc.notFound"),
    PROMOTIONS(7, "promotions"),
    STATS_REQUESTS(8, "stats"),
    MALFORMED_REQUESTS(9, "requests.malformed"),
    LIMIT_REJECTIONS(10, "requests.overLimit"),
    WRONG_NODE(11, "requests.wrongNode"),
    BUSY(12, "requests.busy"),
    STORE_ERRORS(13, "store.errors"),
    NOT_CACHED(14, "pool.notCached"),
    SEND_FAILURES(15, "responses.sendFailed"),
    CONNECTIONS(16, "connections.data"),
    CONNECTIONS_TOTAL(17, "connections.data.total"),
    CONNECTIONS_REFUSED(18, "connections.data.refused"),
    CONTROL_CONNECTIONS(19, "connections.control"),
    HANDSHAKES(20, "control.welcomes"),
    HANDSHAKE_REJECTS(21, "control.rejects"),
    IN_FLIGHT_WRITES(22, "writes.inFlight"),
    DELETES_NOT_FOUND(23, "deletes.notFound"),
    ATTACHES(24, "data.attaches"),
    ATTACH_REFUSALS(25, "data.attachRefusals"),
    /** Unauthenticated data connections closed to make room for newer ones (budget or per-source bound full). */
    DATA_SHED(26, "data.shed"),
    /** Unauthenticated control connections closed to make room for newer ones. */
    CONTROL_SHED(27, "control.shed"),
    /** Control connections closed for sending no good HELLO within the handshake timeout. */
    CONTROL_TIMEOUTS(28, "control.handshakeTimeouts"),
    /** HELLOs whose credential check waited (or was refused) because their source failed too often. */
    CREDENTIALS_THROTTLED(29, "control.throttled"),
    /** Data connections that did not attach within the handshake timeout (also counted in attachRefusals). */
    DATA_TIMEOUTS(30, "data.attachTimeouts"),
    /**
     * Retries of PUTs and DELETEs this node had applied already (same write id), answered with the first attempt's
     * outcome instead of being applied again.
     */
    RETRIES_ANSWERED(31, "writes.retriesAnswered"),
    /** Backups this node, as a new primary, reconciled (each kept in sync, nothing dropped). */
    RECONCILES(32, "replication.reconciled"),
    /** Fix-ups this node's reconciles sent (a key's current value, or its absence, to a backup). */
    RECONCILE_FIX_UPS(33, "replication.fixUps"),
    /** Write-id records this replica dropped because a new primary's fix-up undid their writes here. */
    WRITE_IDS_UNDONE(34, "replication.writeIdsUndone"),
    /** PUTs refused with DISK_FULL because the node's disk is full ({@code store.DiskFullGuard}). */
    DISK_FULL_REFUSALS(35, "requests.diskFull"),
    /** Requests and ADMIN commands refused FORBIDDEN: the session's role or key prefixes do not allow them. */
    FORBIDDEN(36, "requests.forbidden"),
    /** Record writes taken (conditional writes, counters, expiry changes, PUTs with an expiry). */
    RECORD_WRITES(37, "recordWrites"),
    /** Conditional writes refused because their condition did not hold (answered CONDITION_FAILED). */
    CONDITIONS_FAILED(38, "recordWrites.conditionFailed"),
    /** Expired keys the background sweep deleted (a conditional delete each, replicated). */
    EXPIRED_REMOVED(39, "expiry.removed"),
    /** Atomic multi-key writes (BATCH_WRITE) taken. */
    BATCH_WRITES(40, "batchWrites"),
    /** Atomic multi-key writes refused because their keys hash to more than one slot (answered CROSSSLOT). */
    BATCH_CROSSSLOT(41, "batchWrites.crossSlot"),
    /**
     * Writes not sent to an in-sync backup because its link dropped with writes awaiting it: it takes no later write
     * while in sync, so what it applied is a prefix of the stream (a reconcile compares prefixes).
     */
    REPLICATION_WITHHELD(42, "replication.withheldAfterDrop"),
    /** Memory windows bound, one per data session on a transport with windows (issue 33 item 3). */
    WINDOWS_BOUND(43, "memoryWindows.bound"),
    /**
     * Data sessions revoked (their user removed or changed in the users file) that had a memory window: closed before
     * the session's endpoint, so the key read nothing more.
     */
    WINDOWS_REVOKED(44, "memoryWindows.revoked"),
    /**
     * Writes refused BUSY because a backup had a whole reconcile window of this node's writes unanswered (16,384 keys
     * or 512 KiB of keys): in-flight writes stay within what a new primary can reconcile.
     */
    REPLICATION_WINDOW_FULL(47, "replication.windowFull"),
    /**
     * RPC GETs of a key the pool lacks answered NOT_FOUND from the COMPLETE pool, without a RocksDB read (also
     * counted in gets.rpc.notFound).
     */
    GETS_RPC_COMPLETE_MISSES(46, "gets.rpc.completeMisses");

    private final int id;
    private final String label;

    ServerCounter(final int id, final String label)
    {
        this.id = id;
        this.label = label;
    }

    public int id()
    {
        return id;
    }

    public String label()
    {
        return label;
    }
}

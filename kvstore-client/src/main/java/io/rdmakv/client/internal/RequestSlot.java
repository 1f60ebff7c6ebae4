package io.rdmakv.client.internal;

import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * The state of one request in flight, pooled and reused: the request (key and value views, no copies), the one-sided
 * GET's progress, and the result. There are {@code maxInFlight} of them; a caller takes one, the worker thread drives
 * it, and it returns to the pool when the result has been handed over.
 *
 * <p>Each request slot owns a fixed part of the client's registered read memory:
 * <pre>
 *   0          64          128              224         232      256                          256 + extentCapacity
 *   +-----------+-----------+----------------+-----------+--------+------------------------------+
 *   | primary   | secondary | pool header    | ownership | unused | value extent (one candidate  |
 *   | bucket    | bucket    | (first 96 B)   | word (8 B)|        | at a time)                   |
 *   +-----------+-----------+----------------+-----------+--------+------------------------------+
 * </pre>
 * The two buckets, the header and the key's slot ownership word are read in one batch, so the COMPLETE flag, the
 * epoch and the ownership are as fresh as the slots. A GET whose key's location is cached reads the value extent and
 * the ownership word, in one batch, into the same places.
 *
 * <p>Threads: the caller fills the request and posts the first operation; continuations and completion run on the
 * worker's progress thread, or on the caller's own thread for one-sided reads that complete on return (shm; see
 * {@link OneSidedGetProtocol}). {@link #state} hands the result back with a volatile write.
 */
final class RequestSlot
{
    static final int PRIMARY_BUCKET_OFFSET = 0;
    static final int SECONDARY_BUCKET_OFFSET = 64;
    static final int HEADER_OFFSET = 128;
    static final int HEADER_READ_LENGTH = 96;
    static final int OWNERSHIP_OFFSET = 224;
    static final int EXTENT_OFFSET = 256;

    static final int TYPE_GET = 1;
    static final int TYPE_PUT = 2;
    static final int TYPE_DELETE = 3;
    static final int TYPE_STATS = 4;
    /**
     * A page of keys (scan, range or prefix read): the request's {@link #key} holds the whole KEY_SCAN body, whose
     * first hash slot it is routed by.
     */
    static final int TYPE_KEY_SCAN = 5;
    /** A RECORD_WRITE: a conditional write, a counter, an expiry change, a PUT with expiry, a TTL read. */
    static final int TYPE_RECORD = 6;
    /**
     * A BATCH_WRITE (an atomic multi-key write): {@link #key} is its first key (routing: every key shares its slot),
     * {@link #value} its encoded entries, {@link #recordArgument} the entry count.
     */
    static final int TYPE_BATCH = 7;

    /** Between operations, or being filled by the caller. */
    static final int PHASE_IDLE = 0;
    static final int PHASE_READ_BUCKETS = 1;
    static final int PHASE_READ_EXTENT = 2;
    static final int PHASE_AWAIT_RESPONSE = 3;
    /** Reading the extent at a cached location, the GET's only read when it verifies. */
    static final int PHASE_READ_CACHED = 4;

    static final int STATE_FREE = 0;
    static final int STATE_ACTIVE = 1;
    static final int STATE_DONE = 2;
    /** The synchronous caller gave up waiting; whoever completes the request slot releases it. */
    static final int STATE_ABANDONED = 3;

    private static final AtomicIntegerFieldUpdater<RequestSlot> STATE =
        AtomicIntegerFieldUpdater.newUpdater(RequestSlot.class, "state");

    final int index;
    /** This request slot's window of the registered read memory (see the layout above). */
    final UnsafeBuffer readBuffer;
    final int extentCapacity;
    final Endpoint.ReadRequest[] batch = {new Endpoint.ReadRequest(), new Endpoint.ReadRequest(),
        new Endpoint.ReadRequest(), new Endpoint.ReadRequest()};
    /** Reads of the current batch (or the extent read) not yet completed. */
    final AtomicInteger pendingReads = new AtomicInteger();
    /** Matching index entries found in the buckets, tried in order: primary bucket first. */
    final long[] candidates = new long[16];

    // The request: views over the caller's memory, never copies.
    final UnsafeBuffer key = new UnsafeBuffer(new byte[0]);
    final UnsafeBuffer value = new UnsafeBuffer(new byte[0]);
    int type;
    int keyLength;
    int valueLength;
    /**
     * The key with its index hash and hash slot (Redis Cluster's CRC16 of its hash tag), computed once when the call
     * starts; routing, the location cache and the one-sided read's checks read them. A view of {@link #key}.
     */
    final HashedKey hashedKey = new HashedKey();
    /**
     * The epoch of the key's range in the map the request was routed by (set with its session): an ownership word
     * older than it is not trusted.
     */
    long rangeEpoch;
    long deadlineNanos;
    /** When the last RPC of this request was sent, on the read lease clock: a grant in its answer counts from here. */
    long sentNanos;
    long correlationId;
    long generation;
    int redirects;
    /** Why the request was last routed again after a lost connection (for its failure message). */
    String lastReroute;
    int tornRetries;
    /** A candidate's extent held another key during this pass: a miss after it is not definitive. */
    boolean keyMismatchSeen;
    NodeSession session;
    /** A GET's destination given by the caller (the value is copied there, not into a new array); null otherwise. */
    ValueSink sink;
    /** Who waits: the async call (its future) for the async API, else the parked caller thread. */
    AsyncCall<?> call;
    Thread waiter;

    // Progress of the one-sided GET (the thread that finished its last step: the worker's, or the caller's).
    volatile int phase;
    /** From the pool header read with the buckets: a one-sided miss is definitive. */
    boolean poolComplete;
    int batchSize;
    int batchPosted;
    int candidateCount;
    int candidateNext;
    int extentLength;
    /** The index entry whose extent is being read: a candidate from the buckets, or the cached location. */
    long followedEntry;
    /** The version the cached location promised (a cached read only). */
    long expectedVersion;
    /** First failed read status of the current batch (ordered before the batch's last count-down). */
    io.rdmakv.transport.TransportStatus readFailure;
    /** What the conductor should retry when a post from the worker thread was back-pressured. */
    int deferredAction;

    // A RECORD_WRITE's fields (RecordWriteRequestFlyweight).
    int recordOp;
    long recordExpected;
    long recordArgument;

    // The result.
    Status resultStatus;
    /** The answer's version: a GET's data version, a refused condition's present version, a TTL's data version. */
    long resultVersion;
    /** The data version an OK record write wrote (0: none). */
    long resultWritten;
    byte[] resultValue;
    /** Why the {@link #sink} refused the value (a GET into a caller's destination only). */
    RuntimeException sinkFailure;
    String resultText;
    KvException failure;

    volatile int state;

    /**
     * A PUT's or DELETE's number in this client's {@link WriteSequencer} (0 until its first send), kept on retries and
     * given back at release; read by the sequencer's scans on other threads.
     */
    volatile long writeSequence;
    /** The sequencer's completed-below mark when the write was last numbered (sent with it). */
    long writeCompletedBelow;

    RequestSlot(final int index, final UnsafeBuffer readBuffer, final int extentCapacity)
    {
        this.index = index;
        this.readBuffer = readBuffer;
        this.extentCapacity = extentCapacity;
    }

    /** Prepare for a new request (caller thread, right after taking the request slot from the pool). */
    void reset(final int type, final long deadlineNanos)
    {
        this.type = type;
        this.deadlineNanos = deadlineNanos;
        this.keyLength = 0;
        this.valueLength = 0;
        this.rangeEpoch = 0;
        this.redirects = 0;
        this.lastReroute = null;
        this.tornRetries = 0;
        this.keyMismatchSeen = false;
        this.session = null;
        this.call = null;
        this.waiter = null;
        this.batchSize = 0;
        this.batchPosted = 0;
        this.candidateCount = 0;
        this.candidateNext = 0;
        this.extentLength = 0;
        this.followedEntry = 0;
        this.expectedVersion = 0;
        this.readFailure = null;
        this.deferredAction = 0;
        this.resultStatus = null;
        this.resultVersion = 0;
        this.resultWritten = 0;
        this.recordOp = 0;
        this.recordExpected = 0;
        this.recordArgument = 0;
        this.resultValue = null;
        this.sinkFailure = null;
        this.sink = null;
        this.resultText = null;
        this.failure = null;
        this.phase = PHASE_IDLE;
        this.writeSequence = 0;
    }

    boolean markDone()
    {
        return STATE.compareAndSet(this, STATE_ACTIVE, STATE_DONE);
    }

    boolean abandon()
    {
        return STATE.compareAndSet(this, STATE_ACTIVE, STATE_ABANDONED);
    }

    void succeed(final Status status, final byte[] value, final String text)
    {
        this.resultStatus = status;
        this.resultValue = value;
        this.resultText = text;
        this.failure = null;
    }

    /**
     * A GET found its value at {@code index} of {@code buffer}, valid only during this call: copy it into the caller's
     * {@link #sink} when there is one, else into a new array (the one allocation of a GET).
     */
    void succeedWithValue(final DirectBuffer buffer, final int index, final int length)
    {
        if (sink != null)
        {
            sinkFailure = sink.accept(buffer, index, length);
            succeed(Status.OK, null, null);
            return;
        }
        final byte[] value = new byte[length];
        buffer.getBytes(index, value);
        succeed(Status.OK, value, null);
    }

    void fail(final KvException failure)
    {
        this.failure = failure;
    }

    void fail(final KvError error, final String message)
    {
        fail(KvException.of(error, message));
    }

    String describe()
    {
        switch (type)
        {
            case TYPE_GET:
                return "GET";
            case TYPE_PUT:
                return "PUT";
            case TYPE_DELETE:
                return "DELETE";
            case TYPE_STATS:
                return "STATS";
            case TYPE_KEY_SCAN:
                return "KEY_SCAN";
            case TYPE_RECORD:
                return "record write";
            case TYPE_BATCH:
                return "atomic batch";
            default:
                return "request";
        }
    }
}

package io.rdmakv.client.internal;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.KeyScanRequestFlyweight;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.transport.WorkerProgress;
import org.agrona.DirectBuffer;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * How a request gets a request slot and starts. A synchronous call checks its arguments, waits for a free request slot
 * (within its timeout), starts the request on its own thread and waits for the answer. An asynchronous call never
 * blocks: it starts on the caller's thread when nothing is queued, a request slot is free and the key's node is
 * connected, and otherwise waits in the bounded {@link RequestQueue} (or fails at once with back-pressure when that is
 * full). Its deadline is fixed at the call, so time in the queue counts against the request timeout.
 */
final class Requests implements RequestQueue.Starter, AutoCloseable
{
    private final RequestSlots requestSlots;
    private final ClusterRouter router;
    private final ClientCounters counters;
    private final WorkerProgress progress;
    /** {@link #progress} when synchronous callers drive it themselves, else {@code null}. */
    private final WorkerProgress callerDriver;
    /** How a thread blocked on an async call's future drives progress (as {@link #callerDriver} allows). */
    private final DrivenFuture.Drive drive;
    private final long timeoutNanos;
    private final String transportName;
    private final int maxKeyLength;
    private final int maxValueLength;
    private final int maxMessageBytes;
    private final RequestQueue queue;
    private volatile boolean closed;

    Requests(final RequestSlots requestSlots, final ClusterRouter router, final ClientCounters counters,
        final WorkerProgress progress, final WorkerProgress callerDriver, final long timeoutNanos,
        final int maxQueuedRequests, final String transportName, final int maxKeyLength, final int maxValueLength,
        final int maxMessageBytes)
    {
        this.requestSlots = requestSlots;
        this.router = router;
        this.counters = counters;
        this.progress = progress;
        this.callerDriver = callerDriver;
        this.drive = new DrivenFuture.Drive(callerDriver, requestSlots.driveBudget(), counters,
            DrivenFuture.WAIT_SPIN_NANOS, RequestSlots.WAIT_YIELD_NANOS, requestSlots::alone);
        this.timeoutNanos = timeoutNanos;
        this.transportName = transportName;
        this.maxKeyLength = maxKeyLength;
        this.maxValueLength = maxValueLength;
        this.maxMessageBytes = maxMessageBytes;
        this.queue = new RequestQueue(maxQueuedRequests, this, counters, "rdmakv-client-queue");
        requestSlots.onRelease(queue::requestSlotReleased);
    }

    int maxKeyLength()
    {
        return maxKeyLength;
    }

    int maxValueLength()
    {
        return maxValueLength;
    }

    int queued()
    {
        return queue.pending();
    }

    /** Run one request and wait for it ({@code value} only for PUT). */
    <T> T call(final RequestType<T> type, final byte[] key, final byte[] value)
    {
        final RequestSlot requestSlot = prepare(type, key.length, value == null ? 0 : value.length);
        requestSlot.key.wrap(key);
        requestSlot.keyLength = key.length;
        if (value != null)
        {
            requestSlot.value.wrap(value);
            requestSlot.valueLength = value.length;
        }
        return run(requestSlot, type);
    }

    /** Run one RECORD_WRITE and wait for it ({@code value} for the PUT ops, else empty). */
    <T> T callRecord(final RequestType<T> type, final int op, final long expected, final long argument,
        final byte[] key, final byte[] value)
    {
        final RequestSlot requestSlot = prepare(type, key.length, value.length);
        requestSlot.key.wrap(key);
        requestSlot.keyLength = key.length;
        requestSlot.value.wrap(value);
        requestSlot.valueLength = value.length;
        requestSlot.recordOp = op;
        requestSlot.recordExpected = expected;
        requestSlot.recordArgument = argument;
        return run(requestSlot, type);
    }

    /**
     * Run one BATCH_WRITE and wait: {@code firstKey} routes it (every key shares its hash slot), {@code entries} are
     * the encoded entries ({@link io.rdmakv.protocol.wire.BatchWriteRequestFlyweight}).
     */
    <T> T callBatch(final RequestType<T> type, final byte[] firstKey, final byte[] entries, final int count)
    {
        return callRecord(type, 0, 0, count, firstKey, entries);
    }

    /** {@link #callBatch} without blocking. */
    <T> CompletableFuture<T> callBatchAsync(final RequestType<T> type, final byte[] firstKey, final byte[] entries,
        final int count)
    {
        return callRecordAsync(type, 0, 0, count, firstKey, entries);
    }

    /**
     * Whether a batch of {@code puts} PUTs and {@code entriesLength} bytes of entries fits the node's limit (one
     * largest key and value, each PUT counted with its record header, so its REPLICATE fits too); else why not.
     */
    String batchRefusal(final int puts, final int entriesLength)
    {
        final long length = BatchWriteRequestFlyweight.recordEntriesLength(puts, entriesLength);
        return length > (long)maxKeyLength + maxValueLength ? "a batch of " + length + " bytes (entries, each PUT " +
            "with its 18-byte record header) exceeds the server's limit of one key and one value, " +
            ((long)maxKeyLength + maxValueLength) + " bytes" : null;
    }

    /** {@link #callRecord} without blocking. */
    <T> CompletableFuture<T> callRecordAsync(final RequestType<T> type, final int op, final long expected,
        final long argument, final byte[] key, final byte[] value)
    {
        return submit(new AsyncCall<>(type, deadline(), drive).bytes(key, value).record(op, expected, argument), false);
    }

    /** Run one request over the remaining bytes of buffers (positions unchanged) and wait for it. */
    <T> T call(final RequestType<T> type, final ByteBuffer key, final ByteBuffer value)
    {
        final RequestSlot requestSlot = prepare(type, key.remaining(), value == null ? 0 : value.remaining());
        try
        {
            AsyncCall.wrap(requestSlot, key, key.position(), key.remaining(), value, value == null ? 0 : value.position(),
                value == null ? 0 : value.remaining());
        }
        catch (final RuntimeException ex)
        {
            requestSlots.release(requestSlot); // nothing was started: hand the request slot back before reporting
            throw ex;
        }
        return run(requestSlot, type);
    }

    /**
     * Run one request over views of the caller's memory and wait ({@code value} for PUT only, {@code sink} for a
     * GET whose value goes there).
     */
    <T> T call(final RequestType<T> type, final DirectBuffer key, final DirectBuffer value, final ValueSink sink)
    {
        final RequestSlot requestSlot = prepare(type, key.capacity(), value == null ? 0 : value.capacity());
        AsyncCall.views(requestSlot, key, value);
        requestSlot.sink = sink;
        return run(requestSlot, type);
    }

    /** {@link #call(RequestType, DirectBuffer, DirectBuffer, ValueSink)} without blocking. */
    <T> CompletableFuture<T> callAsync(final RequestType<T> type, final DirectBuffer key, final DirectBuffer value,
        final ValueSink sink)
    {
        return submit(new AsyncCall<>(type, deadline(), drive).views(key, value, sink), false);
    }

    /**
     * Start one request without blocking; the future completes on the progress thread (keep stages short), on a
     * thread blocked in its {@code get}/{@code join} that drives progress ({@link DrivenFuture}), or on this thread
     * before the call returns when a one-sided GET's reads complete on return (shm).
     */
    <T> CompletableFuture<T> callAsync(final RequestType<T> type, final byte[] key, final byte[] value)
    {
        return submit(new AsyncCall<>(type, deadline(), drive).bytes(key, value), false);
    }

    /** {@link #callAsync(RequestType, byte[], byte[])} over buffers; they must not change until it completes. */
    <T> CompletableFuture<T> callAsync(final RequestType<T> type, final ByteBuffer key, final ByteBuffer value)
    {
        return submit(new AsyncCall<>(type, deadline(), drive).buffers(key, value), false);
    }

    /**
     * GETs of several keys, concurrently, waiting for them all within one request timeout from this call. When the
     * queue is full the caller waits for room (a synchronous call may block; it never fails for back-pressure).
     */
    List<byte[]> multiGet(final List<byte[]> keys)
    {
        checkCaller();
        final long deadline = deadline();
        final List<AsyncCall<byte[]>> calls = new ArrayList<>(keys.size());
        for (final byte[] key : keys)
        {
            calls.add(submit(new AsyncCall<>(RequestType.GET, deadline, drive).bytes(Objects.requireNonNull(key, "key"),
                null), true));
        }
        final List<byte[]> values = new ArrayList<>(keys.size());
        for (final AsyncCall<byte[]> call : calls)
        {
            values.add(await(call, deadline));
        }
        return values;
    }

    /**
     * GETs of several keys without blocking: the future gives the values in key order, or fails as soon as one GET
     * fails (the GETs not yet started then are not started).
     */
    CompletableFuture<List<byte[]>> multiGetAsync(final List<byte[]> keys)
    {
        final int n = keys.size();
        final CompletableFuture<List<byte[]>> result = new DrivenFuture<>(drive);
        if (n == 0)
        {
            result.complete(new ArrayList<>());
            return result;
        }
        final long deadline = deadline();
        final byte[][] values = new byte[n][];
        final AtomicInteger remaining = new AtomicInteger(n);
        for (int i = 0; i < n && !result.isDone(); i++)
        {
            final int index = i;
            final byte[] key = keys.get(i);
            if (key == null)
            {
                result.completeExceptionally(new NullPointerException("key " + i + " is null"));
                break;
            }
            submit(new AsyncCall<>(RequestType.GET, deadline, drive).bytes(key, null), false).whenComplete((value, failure) ->
            {
                if (failure != null)
                {
                    result.completeExceptionally(failure);
                }
                else
                {
                    values[index] = value;
                    if (remaining.decrementAndGet() == 0)
                    {
                        result.complete(new ArrayList<>(Arrays.asList(values)));
                    }
                }
            });
        }
        return result;
    }

    /** STATS of one node, as its text; waits like any synchronous call. */
    String stats(final int nodeId)
    {
        checkCaller();
        final RequestSlot requestSlot = acquire(RequestType.STATS.code);
        requestSlot.waiter = Thread.currentThread();
        router.dispatchTo(requestSlot, nodeId);
        return requestSlots.await(requestSlot, RequestType.STATS, timeoutNanos, callerDriver);
    }

    /** The queue's thread: start {@code call} if a request slot is free, connecting to its node if need be. */
    @Override
    public boolean tryStart(final AsyncCall<?> call)
    {
        return start(call, true);
    }

    @Override
    public void close()
    {
        closed = true;
        queue.close();
    }

    private <T> AsyncCall<T> submit(final AsyncCall<T> call, final boolean waitForRoom)
    {
        try
        {
            checkLimits(call.type.code, call.keyLength(), call.valueLength());
        }
        catch (final IllegalArgumentException ex)
        {
            call.fail(ex);
            return call;
        }
        if (closed)
        {
            call.fail(KvException.of(KvError.CLOSED, "the client is closed"));
            return call;
        }
        // The fast path only when nothing queued before is still waiting, so one thread's requests start in order.
        if (queue.pending() == 0 && start(call, false))
        {
            return call;
        }
        if (waitForRoom)
        {
            queue.offerWaiting(call, call.deadlineNanos);
        }
        else
        {
            queue.offer(call);
        }
        return call;
    }

    /**
     * Start {@code call} on a free request slot, never waiting for one.
     *
     * @param mayConnect whether this thread may open the node's connection (the queue's thread); a caller's may not.
     * @return false when nothing was done (no request slot free, or the node must be connected and this thread may
     * not).
     */
    private boolean start(final AsyncCall<?> call, final boolean mayConnect)
    {
        final RequestSlot requestSlot = requestSlots.tryAcquire(call.type.code, call.deadlineNanos);
        if (requestSlot == null)
        {
            return false;
        }
        try
        {
            call.fill(requestSlot);
        }
        catch (final RuntimeException ex)
        {
            requestSlots.release(requestSlot);
            call.fail(ex);
            return true;
        }
        hashKey(requestSlot);
        if (mayConnect)
        {
            router.dispatch(requestSlot);
            return true;
        }
        if (router.dispatchIfConnected(requestSlot))
        {
            return true;
        }
        requestSlots.release(requestSlot);
        return false;
    }

    private RequestSlot prepare(final RequestType<?> type, final int keyLength, final int valueLength)
    {
        checkLimits(type.code, keyLength, valueLength);
        checkCaller();
        final RequestSlot requestSlot = acquire(type.code);
        requestSlot.waiter = Thread.currentThread();
        return requestSlot;
    }

    private void checkLimits(final int type, final int keyLength, final int valueLength)
    {
        if (type == RequestSlot.TYPE_KEY_SCAN)
        {
            final long message = (long)MessageHeaderFlyweight.HEADER_LENGTH + keyLength;
            if (message > maxMessageBytes)
            {
                throw new IllegalArgumentException("a scan request of " + message + " bytes exceeds the " +
                    transportName + " transport's message limit of " + maxMessageBytes + " bytes");
            }
            return;
        }
        if (keyLength <= 0 || keyLength > maxKeyLength)
        {
            throw new IllegalArgumentException(keyLength == 0 ? "key must not be empty" :
                "key of " + keyLength + " bytes exceeds the limit of " + maxKeyLength + " bytes");
        }
        if (type == RequestSlot.TYPE_BATCH)
        {
            final long message = (long)BatchWriteRequestFlyweight.ENTRIES_OFFSET +
                valueLength + MessageHeaderFlyweight.WRITE_ID_LENGTH;
            if (message > maxMessageBytes)
            {
                throw new IllegalArgumentException("an atomic batch of " + message + " bytes exceeds the " +
                    transportName + " transport's message limit of " + maxMessageBytes + " bytes");
            }
            return;
        }
        if (type == RequestSlot.TYPE_PUT || type == RequestSlot.TYPE_RECORD)
        {
            if (valueLength > maxValueLength)
            {
                throw new IllegalArgumentException("value of " + valueLength + " bytes exceeds the server's limit of " +
                    maxValueLength + " bytes");
            }
            final long message = (long)PutRequestFlyweight.KEY_OFFSET + keyLength + valueLength +
                MessageHeaderFlyweight.WRITE_ID_LENGTH;
            if (message > maxMessageBytes)
            {
                throw new IllegalArgumentException("a PUT of " + message + " bytes exceeds the " + transportName +
                    " transport's message limit of " + maxMessageBytes + " bytes");
            }
        }
    }

    private RequestSlot acquire(final int type)
    {
        if (closed)
        {
            throw KvException.of(KvError.CLOSED, "the client is closed");
        }
        final RequestSlot requestSlot = requestSlots.acquire(type, deadline());
        if (requestSlot == null)
        {
            counters.increment(ClientCounter.FAILURES);
            counters.increment(ClientCounter.TIMEOUTS);
            throw KvException.of(KvError.TIMED_OUT, "all " + requestSlots.capacity() + " request slots stayed busy for " +
                TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms (raise maxInFlight or the request timeout)");
        }
        return requestSlot;
    }

    /**
     * The request's key hashed once, for routing and the one-sided read; a KEY_SCAN routes by the first hash slot its
     * body names (its key is the body).
     */
    private static void hashKey(final RequestSlot requestSlot)
    {
        if (requestSlot.type == RequestSlot.TYPE_KEY_SCAN)
        {
            requestSlot.hashedKey.wrapHashed(requestSlot.key, 0, requestSlot.keyLength, 0L,
                KeyScanRequestFlyweight.firstSlotOfBody(requestSlot.key, 0));
            return;
        }
        requestSlot.hashedKey.wrap(requestSlot.key, 0, requestSlot.keyLength);
    }

    private <T> T run(final RequestSlot requestSlot, final RequestType<T> type)
    {
        hashKey(requestSlot);
        router.dispatch(requestSlot);
        return requestSlots.await(requestSlot, type, timeoutNanos, callerDriver);
    }

    /** Wait for an async call on behalf of a synchronous caller: bounded by its deadline plus the usual slack. */
    private <T> T await(final AsyncCall<T> call, final long deadline)
    {
        try
        {
            return call.get(Math.max(0, deadline + timeoutNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof RuntimeException re)
            {
                throw re;
            }
            throw KvException.of(KvError.PROTOCOL_ERROR, "request failed: " + ex.getCause(), ex.getCause());
        }
        catch (final TimeoutException ex)
        {
            throw KvException.of(KvError.TIMED_OUT, "GET got no answer in time (the client's progress thread did " +
                "not complete it)", ex);
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw KvException.of(KvError.CLOSED, "interrupted while waiting", ex);
        }
    }

    private long deadline()
    {
        return System.nanoTime() + timeoutNanos;
    }

    private void checkCaller()
    {
        if (progress.isProgressThread())
        {
            throw new IllegalStateException("a blocking KvClient call was made on the client's progress thread (from " +
                "a future's dependent stage?): use the *Async methods there, or thenApplyAsync/thenComposeAsync");
        }
    }
}

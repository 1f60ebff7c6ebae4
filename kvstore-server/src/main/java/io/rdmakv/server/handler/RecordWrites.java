package io.rdmakv.server.handler;

import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.store.DataVersions;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.StoreKeys;
import io.rdmakv.transport.Endpoint;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.function.LongSupplier;

/**
 * The writes that decide from the key's current record, on the primary ({@link RecordWriteRequestFlyweight}):
 * putIfAbsent, replace (PUT if the data version is the expected one), delete if the data version is the expected
 * one, increment, expire, persist; and a PUT with an expiry, which reads nothing (a restore's PUT keeps the data
 * version it carries).
 *
 * <pre>
 *   handler: RECORD_WRITE -> (any pending PUT batch written first, as before every request that is not a PUT)
 *            -> write path chain: write-id check (a retry is answered as its first attempt, the decision never runs
 *               again) -> decide(path below the check):
 *                 read the key's record from RocksDB -> expired? absent -> condition?
 *                   holds : a new record (next data version) -> path.put  (replicated, recorded, answered as a PUT)
 *                           or path.delete
 *                   fails : CONDITION_FAILED / NOT_FOUND / NOT_AN_INTEGER, nothing written -> path.answerUnwritten:
 *                           answered behind every write the path took before it (the record read may be one of them,
 *                           not yet answered nor in the pool)
 * </pre>
 * Why it is atomic per key on the primary: the request thread is the only writer of the node's keys, and takes one
 * request at a time. Every write it accepted before this one is in RocksDB when the decision reads it: a PUT batch is
 * written before any request that is not a PUT (and the decision writes what is pending below it again), a DELETE and a
 * REPLICATE are written inline, and replication sends a write to the backups after the local write (DEFAULT
 * durability: the local store leads the pool and the answers). The write the decision hands on is then ordered
 * before every later request of the key by the same path. FSYNC durability keeps writes queued for the group commit
 * outside RocksDB: there the decision first waits until the committer wrote every write queued before it (about one
 * sync), so it reads them too; the request thread waits that long, once per conditional write.
 * A decision that writes nothing is an answer that shows what it read: it goes out in order behind the writes before
 * it, as a write would, so no answer shows a write before the pool does (a one-sided GET after it never reads older).
 *
 * Request thread only; allocation-free except the counter's decimal text.
 */
public final class RecordWrites
{
    /** Longest wait for the group commit to write what was queued before a decision (FSYNC durability). */
    private static final long GROUP_COMMIT_WAIT_NANOS = java.util.concurrent.TimeUnit.SECONDS.toNanos(10);

    /** What a {@link WritePath#recordWrite} hands down to the path below the write-id check. */
    @FunctionalInterface
    public interface Decision
    {
        void decide(WritePath path, Endpoint endpoint, long correlationId, MessageHeaderFlyweight request,
            HashedKey key);
    }

    private final RocksStore store;
    private final DataVersions versions;
    private final ResponseSender responses;
    private final ServerCounters counters;
    private final LongSupplier clockMillis;
    private final ByteBuffer keyScratch;
    private final UnsafeBuffer keyScratchBuffer;
    /** The key's current record, read from RocksDB. */
    private final ByteBuffer current;
    private final UnsafeBuffer currentBuffer;
    /** The record the decision writes. */
    private final UnsafeBuffer next;
    private final Decision decision = this::decide;
    /** The request being decided (valid during {@link #apply}). */
    private RecordWriteRequestFlyweight request;

    RecordWrites(final RocksStore store, final DataVersions versions, final ResponseSender responses,
        final ServerCounters counters, final Limits limits, final LongSupplier clockMillis)
    {
        this.store = store;
        this.versions = versions;
        this.responses = responses;
        this.counters = counters;
        this.clockMillis = clockMillis;
        this.keyScratch = ByteBuffer.allocateDirect(StoreKeys.PREFIX_LENGTH + limits.maxKeyBytes());
        this.keyScratchBuffer = new UnsafeBuffer(keyScratch);
        this.current = ByteBuffer.allocateDirect(ValueRecord.HEADER_LENGTH + limits.maxValueBytes());
        this.currentBuffer = new UnsafeBuffer(current);
        this.next = new UnsafeBuffer(ByteBuffer.allocateDirect(ValueRecord.HEADER_LENGTH + limits.maxValueBytes()));
    }

    /** Hand {@code write} to {@code writes} (the node's client path); answers it one way or another. */
    void apply(final WritePath writes, final Endpoint endpoint, final long correlationId,
        final RecordWriteRequestFlyweight write, final HashedKey key)
    {
        this.request = write;
        try
        {
            writes.recordWrite(endpoint, correlationId, write, key, decision);
        }
        finally
        {
            this.request = null;
        }
    }

    /**
     * TTL: the key's data version and expiry, read without writing (NOT_FOUND when absent or expired), answered through
     * {@code path} behind the writes before it ({@link WritePath#answerUnwritten}: RocksDB may hold one not answered).
     * A PUT of the same connection or key still in the path's batch is written first, as before a GET.
     */
    void answerTtl(final WritePath path, final Endpoint endpoint, final long correlationId, final HashedKey key)
    {
        if (path.holdsWriteFor(endpoint, key))
        {
            path.flush();
        }
        final int length;
        try
        {
            length = readCurrent(key, false);
        }
        catch (final StoreException ex)
        {
            storeFailure(path, endpoint, correlationId, key, ex);
            return;
        }
        if (length < 0)
        {
            path.answerUnwritten(endpoint, correlationId, key, Status.NOT_FOUND, 0, 0, null);
            return;
        }
        path.answerUnwritten(endpoint, correlationId, key, Status.OK, ValueRecord.dataVersion(currentBuffer, 0),
            ValueRecord.expiryMillis(currentBuffer, 0), null);
    }

    private void decide(final WritePath path, final Endpoint endpoint, final long correlationId,
        final MessageHeaderFlyweight message, final HashedKey key)
    {
        final RecordWriteRequestFlyweight write = request;
        final int op = write.op();
        if (op == RecordWriteRequestFlyweight.OP_PUT)
        {
            final long kept = write.expectedVersion();
            if (kept != 0)
            {
                // A restore's record: its data version kept, observed first so that every version this node issues
                // later is above it (replicas observe it as they apply the record).
                versions.observe(kept);
            }
            putNew(path, endpoint, correlationId, message, key, write.argument(), kept == 0 ? versions.next() : kept);
            return;
        }
        path.flush(); // whatever is pending below is in RocksDB before it is read
        if (!store.awaitSubmittedWrites(GROUP_COMMIT_WAIT_NANOS))
        {
            // FSYNC: the writes queued for group commit are read too, once written (about one sync's wait)
            path.answerUnwritten(endpoint, correlationId, key, Status.STORE_ERROR, 0, 0, "the group commit did not " +
                "write the writes before this one within " + GROUP_COMMIT_WAIT_NANOS / 1_000_000_000L + " s; retry");
            return;
        }
        final int length;
        try
        {
            length = readCurrent(key, op == RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION &&
                (write.recordFlags() & RecordWriteRequestFlyweight.FLAG_INCLUDE_EXPIRED) != 0);
        }
        catch (final StoreException ex)
        {
            storeFailure(path, endpoint, correlationId, key, ex);
            return;
        }
        final boolean present = length >= 0;
        final long version = present ? ValueRecord.dataVersion(currentBuffer, 0) : 0;
        switch (op)
        {
            case RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT ->
            {
                if (present)
                {
                    refuse(path, endpoint, correlationId, key, version);
                    return;
                }
                putNew(path, endpoint, correlationId, message, key, write.argument(), versions.next());
            }
            case RecordWriteRequestFlyweight.OP_PUT_IF_VERSION ->
            {
                if (!present || version != write.expectedVersion())
                {
                    refuse(path, endpoint, correlationId, key, version);
                    return;
                }
                putNew(path, endpoint, correlationId, message, key, write.argument(), versions.next());
            }
            case RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION ->
            {
                if (!present || version != write.expectedVersion())
                {
                    refuse(path, endpoint, correlationId, key, version);
                    return;
                }
                if ((write.recordFlags() & RecordWriteRequestFlyweight.FLAG_INCLUDE_EXPIRED) != 0)
                {
                    counters.increment(ServerCounter.EXPIRED_REMOVED);
                }
                path.delete(endpoint, correlationId, message, key);
            }
            case RecordWriteRequestFlyweight.OP_INCREMENT -> increment(path, endpoint, correlationId, message, key,
                present ? length - ValueRecord.HEADER_LENGTH : -1, write.argument());
            case RecordWriteRequestFlyweight.OP_EXPIRE, RecordWriteRequestFlyweight.OP_PERSIST ->
            {
                if (!present)
                {
                    path.answerUnwritten(endpoint, correlationId, key, Status.NOT_FOUND, 0, 0, null);
                    return;
                }
                if (write.expectedVersion() != 0 && version != write.expectedVersion())
                {
                    // A version given (RESP's PERSIST, after it read an expiry to remove): only that version's.
                    refuse(path, endpoint, correlationId, key, version);
                    return;
                }
                final long expiry = op == RecordWriteRequestFlyweight.OP_EXPIRE ? write.argument() : 0;
                final int valueLength = length - ValueRecord.HEADER_LENGTH;
                ValueRecord.writeHeader(next, 0, versions.next(), expiry, ValueRecord.flags(currentBuffer, 0));
                next.putBytes(ValueRecord.HEADER_LENGTH, currentBuffer, ValueRecord.HEADER_LENGTH, valueLength);
                path.put(endpoint, correlationId, message, key, next, 0, ValueRecord.HEADER_LENGTH + valueLength);
            }
            default -> path.answerUnwritten(endpoint, correlationId, key, Status.MALFORMED, 0, 0,
                "record write op " + op);
        }
    }

    private void putNew(final WritePath path, final Endpoint endpoint, final long correlationId,
        final MessageHeaderFlyweight message, final HashedKey key, final long expiry, final long dataVersion)
    {
        final RecordWriteRequestFlyweight write = request;
        final int valueLength = write.valueLength();
        ValueRecord.writeHeader(next, 0, dataVersion, expiry, 0);
        next.putBytes(ValueRecord.HEADER_LENGTH, write.buffer(), write.valueIndex(), valueLength);
        path.put(endpoint, correlationId, message, key, next, 0, ValueRecord.HEADER_LENGTH + valueLength);
    }

    /**
     * INCREMENT: the present value parsed as a decimal int64 (absent: 0), plus {@code delta}; written back as decimal
     * ASCII with its expiry kept (as Redis's INCR), the answer carrying the new value.
     */
    private void increment(final WritePath path, final Endpoint endpoint, final long correlationId,
        final MessageHeaderFlyweight message, final HashedKey key, final int valueLength, final long delta)
    {
        long value = 0;
        long expiry = 0;
        if (valueLength >= 0)
        {
            expiry = ValueRecord.expiryMillis(currentBuffer, 0);
            try
            {
                value = parseDecimal(currentBuffer, ValueRecord.HEADER_LENGTH, valueLength);
            }
            catch (final NumberFormatException ex)
            {
                path.answerUnwritten(endpoint, correlationId, key, Status.NOT_AN_INTEGER, 0, 0,
                    "the value is not an integer");
                return;
            }
        }
        final long result;
        try
        {
            result = Math.addExact(value, delta);
        }
        catch (final ArithmeticException ex)
        {
            path.answerUnwritten(endpoint, correlationId, key, Status.NOT_AN_INTEGER, 0, 0,
                "increment or decrement would overflow");
            return;
        }
        final byte[] text = Long.toString(result).getBytes(StandardCharsets.US_ASCII);
        ValueRecord.writeHeader(next, 0, versions.next(), expiry, ValueRecord.FLAG_COUNTER);
        next.putBytes(ValueRecord.HEADER_LENGTH, text);
        path.put(endpoint, correlationId, message, key, next, 0, ValueRecord.HEADER_LENGTH + text.length);
    }

    /** A decimal int64 as Redis's INCR reads one: optional '-', digits, no spaces, no leading '+', at most 20 bytes. */
    static long parseDecimal(final UnsafeBuffer buffer, final int index, final int length)
    {
        if (length == 0 || length > 20)
        {
            throw new NumberFormatException("length " + length);
        }
        final byte[] bytes = new byte[length];
        buffer.getBytes(index, bytes);
        final String s = new String(bytes, StandardCharsets.US_ASCII);
        if (s.charAt(0) == '+' || s.length() > 1 && (s.charAt(0) == '0' || s.startsWith("-0")) || "-".equals(s))
        {
            throw new NumberFormatException(s);
        }
        return Long.parseLong(s);
    }

    private void refuse(final WritePath path, final Endpoint endpoint, final long correlationId, final HashedKey key,
        final long currentVersion)
    {
        counters.increment(ServerCounter.CONDITIONS_FAILED);
        path.answerUnwritten(endpoint, correlationId, key, Status.CONDITION_FAILED, currentVersion, 0, null);
    }

    /** A failed read of the key's record: counted and logged, answered through the path (nothing was written). */
    private void storeFailure(final WritePath path, final Endpoint endpoint, final long correlationId,
        final HashedKey key, final StoreException ex)
    {
        final Status status = ResponseSender.storeStatus(ex);
        responses.noteStoreFailure(status, ex.getMessage());
        path.answerUnwritten(endpoint, correlationId, key, status, 0, 0, ex.getMessage());
    }

    /**
     * Read the key's record into {@link #current}: its length, or -1 when absent or (unless {@code includeExpired}:
     * the expiry sweep's delete) expired (an expired record is absent to every read and condition; removing it is a
     * write of its own).
     */
    private int readCurrent(final HashedKey key, final boolean includeExpired)
    {
        final int length = StoreKeys.encode(key, keyScratchBuffer, 0);
        keyScratch.limit(length).position(0);
        current.clear();
        final int found = store.get(keyScratch, current);
        if (found == RocksStore.NOT_FOUND)
        {
            return -1;
        }
        if (found > current.capacity())
        {
            throw new StoreException("the stored record of " + found + " bytes exceeds this node's value limit");
        }
        try
        {
            ValueRecord.check(currentBuffer, 0, found);
        }
        catch (final ProtocolException ex)
        {
            throw new StoreException("the stored record of the key is damaged: " + ex.getMessage(), ex);
        }
        return !includeExpired && ValueRecord.expired(ValueRecord.expiryMillis(currentBuffer, 0),
            clockMillis.getAsLong()) ? -1 : found;
    }
}

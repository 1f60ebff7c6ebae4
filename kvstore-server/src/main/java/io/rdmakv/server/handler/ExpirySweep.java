package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.KeyHasher;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.server.store.StoreKeys;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Worker;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;

/**
 * The background removal of expired keys, on the request thread's duty cycle and bounded in CPU: every
 * {@link #INTERVAL_NANOS} it reads the next {@link #KEYS_PER_STEP} records of the store in key order (a RocksDB
 * iterator resumed after the last key, block cache bypassed), and each expired one of a slot this node is the primary
 * of is deleted by a DELETE conditioned on its data version ({@link RecordWrites}, through the node's write path:
 * replicated, written to RocksDB and taken out of the pool like a client's), so a key written again meanwhile is never
 * removed. A pass over the whole store takes (keys / {@value #KEYS_PER_STEP}) steps; then it starts again.
 *
 * <p>Why not a RocksDB compaction filter: RocksJava offers none written in Java (only the built-in C++ ones, none of
 * which reads this record format), so one would be JNI of the project's own; and a filter drops a key on one node
 * only, outside the write path, where a replica and the pool would not follow. The sweep writes ordinary replicated
 * deletes instead, and the reads (RPC GET, conditions) already treat an expired record as absent meanwhile.
 *
 * Request thread only.
 */
final class ExpirySweep
{
    /** Records read per step: a step costs one iterator seek and this many entries, some microseconds. */
    static final int KEYS_PER_STEP = 256;
    /** Time between steps. */
    static final long INTERVAL_NANOS = 50_000_000L;

    private final RocksStore store;
    private final RecordWrites recordWrites;
    private final ServerCounters counters;
    private final LongSupplier clockMillis;
    private final HashedKey key;
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[0]);
    private final RecordWriteRequestFlyweight delete = new RecordWriteRequestFlyweight();
    /** Expired records found in the current step: store keys and their versions. */
    private final byte[][] found = new byte[KEYS_PER_STEP][];
    private final long[] versions = new long[KEYS_PER_STEP];
    private int foundCount;
    private byte[] cursor;
    private long nextStepNanos;
    private long now;

    ExpirySweep(final RocksStore store, final RecordWrites recordWrites, final ServerCounters counters,
        final LongSupplier clockMillis, final KeyHasher hasher)
    {
        this.store = store;
        this.recordWrites = recordWrites;
        this.counters = counters;
        this.clockMillis = clockMillis;
        this.key = new HashedKey(hasher);
    }

    /** One step when one is due: returns the expired keys deleted. */
    int doWork(final long nowNanos, final WritePath writes, final IntPredicate primaryOf)
    {
        if (nowNanos - nextStepNanos < 0)
        {
            return 0;
        }
        nextStepNanos = nowNanos + INTERVAL_NANOS;
        return step(writes, primaryOf);
    }

    /** Read the next records and delete the expired ones of this node's slots; returns how many were deleted. */
    int step(final WritePath writes, final IntPredicate primaryOf)
    {
        foundCount = 0;
        now = clockMillis.getAsLong();
        try
        {
            cursor = store.visitRecords(cursor, KEYS_PER_STEP, this::consider);
        }
        catch (final StoreException ex)
        {
            cursor = null; // the next step starts over; the reads treat expired records as absent meanwhile
            return 0;
        }
        final long before = counters.get(ServerCounter.EXPIRED_REMOVED);
        for (int i = 0; i < foundCount; i++)
        {
            final byte[] storeKey = found[i];
            found[i] = null;
            if (!primaryOf.test(StoreKeys.hashSlotOfStoreKey(storeKey)))
            {
                continue; // its primary sweeps it; the delete reaches this replica through replication
            }
            final byte[] clientKey = StoreKeys.clientKey(storeKey);
            final byte[] bytes = new byte[RecordWriteRequestFlyweight.KEY_OFFSET + clientKey.length];
            message.wrap(bytes);
            delete.wrap(message, 0, bytes.length).header(MessageType.RECORD_WRITE_REQUEST, 0)
                .write(RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION, versions[i], 0, clientKey, new byte[0])
                .recordFlags(RecordWriteRequestFlyweight.FLAG_INCLUDE_EXPIRED);
            recordWrites.apply(writes, NO_ANSWER, 0, delete, key.wrap(message, RecordWriteRequestFlyweight.KEY_OFFSET,
                clientKey.length));
        }
        return (int)(counters.get(ServerCounter.EXPIRED_REMOVED) - before);
    }

    private void consider(final byte[] storeKey, final byte[] record)
    {
        if (record.length >= ValueRecord.HEADER_LENGTH && record[ValueRecord.FORMAT_OFFSET] == ValueRecord.FORMAT &&
            ValueRecord.expired(ValueRecord.expiryMillis(record), now))
        {
            found[foundCount] = storeKey;
            versions[foundCount] = ValueRecord.dataVersion(record);
            foundCount++;
        }
    }

    /** Where the answers of the sweep's deletes go: nowhere (the node asked itself). */
    static final Endpoint NO_ANSWER = new Endpoint()
    {
        @Override
        public long send(final DirectBuffer buffer, final int offset, final int length,
            final CompletionHandler handler)
        {
            return 0;
        }

        @Override
        public long read(final long remoteAddress, final RemoteKey remoteKey, final int length,
            final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
        {
            throw new UnsupportedOperationException("the expiry sweep reads nothing remote");
        }

        @Override
        public boolean isConnected()
        {
            return true;
        }

        @Override
        public InetSocketAddress remoteAddress()
        {
            return new InetSocketAddress("127.0.0.1", 0);
        }

        @Override
        public int outstanding()
        {
            return 0;
        }

        @Override
        public Worker worker()
        {
            return null;
        }

        @Override
        public void close()
        {
        }
    };
}

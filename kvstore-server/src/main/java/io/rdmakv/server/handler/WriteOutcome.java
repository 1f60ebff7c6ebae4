package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;
import org.agrona.DirectBuffer;

/**
 * What happens to a write once a {@link WritePath} finished it: on a plain node, the pool is updated and the client
 * answered; a decorating path (replication) intercepts it first. Request thread only; the key reference (hashed
 * once, when the write was decoded) and the buffers are valid during the call.
 */
public interface WriteOutcome
{
    /** {@code key -> value} is durable. */
    void putDurable(Endpoint endpoint, long correlationId, HashedKey key, DirectBuffer value, int valueIndex,
        int valueLength);

    /** The deletion of {@code key} is durable; {@code existed} tells whether there was anything to delete. */
    void deleteDurable(Endpoint endpoint, long correlationId, HashedKey key, boolean existed);

    /**
     * Every entry of {@code batch} is durable (one write batch): the pool follows each entry in order, then the client
     * is answered once.
     */
    default void batchDurable(final Endpoint endpoint, final long correlationId, final KeyBatch batch)
    {
        throw new UnsupportedOperationException("this outcome takes no atomic batches");
    }

    /**
     * The write failed or was refused ({@code STORE_ERROR}, {@code DISK_FULL}, {@code BUSY}, ...): nothing became
     * visible.
     */
    void failed(Endpoint endpoint, long correlationId, Status status, String reason);

    /**
     * A request decided from the key's stored record that wrote nothing ({@link WritePath#answerUnwritten}: a refused
     * condition, a counter that is not one, an expiry change of an absent key, a TTL read) is answered now, after
     * every write its path took before it: {@code reason} non-null is an error answer; else {@code OK} carries a TTL
     * read's {@code dataVersion} and {@code expiryMillis}, {@code CONDITION_FAILED} the present {@code dataVersion},
     * any other status nothing more.
     */
    void unwritten(Endpoint endpoint, long correlationId, Status status, long dataVersion, long expiryMillis,
        String reason);

    /**
     * A GET held behind writes ({@link WritePath#answerRead}) is answered now: {@code value} with its
     * {@code dataVersion}, or NOT_FOUND when null. The pool is not touched (what the read found may be older than a
     * write answered since). A path that never holds a read need not implement it.
     */
    default void read(final Endpoint endpoint, final long correlationId, final byte[] value, final long dataVersion)
    {
        throw new UnsupportedOperationException("no read is held on this path");
    }
}

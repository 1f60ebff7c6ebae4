package io.rdmakv.transport;

import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/**
 * A connection to one peer. Operations may be started from any thread; they return a non-negative request id when
 * accepted or a negative sentinel ({@link TransportStatus#sentinel()}) when refused, and complete on the worker's
 * progress thread ({@link #readImmediate} alone completes on return). Accepted operations beyond
 * {@link TransportCapabilities#maxInflightPerEndpoint()} wait in a bounded pending queue; when that is full too the
 * call returns {@link TransportStatus#BACK_PRESSURED}.
 */
public interface Endpoint extends AutoCloseable
{
    /**
     * Send {@code length} bytes. The bytes are copied before this call returns, so the caller may reuse its buffer.
     *
     * @param handler called once the message has left (local completion); may be {@code null}.
     * @return a request id, or a negative sentinel.
     */
    long send(DirectBuffer buffer, int offset, int length, CompletionHandler handler);

    /**
     * One-sided read of {@code length} bytes at {@code remoteAddress} in the region named by {@code remoteKey},
     * into {@code destination} at {@code destinationOffset}. The destination must stay valid until the handler
     * runs and holds the data when it is called with {@link TransportStatus#OK}.
     *
     * <p>A read of a region the target does not have (closed, deregistered even a moment ago, or never registered)
     * completes with {@link TransportStatus#INVALID_RKEY} on every transport, never with a connection status: the
     * target's refusal is the answer. Ranges outside the remote key are refused before anything is sent
     * ({@link TransportStatus#OUT_OF_BOUNDS}). What happens to the endpoint afterwards depends on the transport:
     * <ul>
     *   <li>tcp: the connection stays up; later operations run as usual.</li>
     *   <li>verbs: on RC a remote access error moves both queue pairs to the error state, so the refusal ends the
     *       connection. The refused read completes with INVALID_RKEY; every other operation still outstanding on
     *       the endpoint completes with {@link TransportStatus#PEER_FAILED}; {@link #isConnected()} is false from
     *       the refused read's completion on, and later operations are refused at once with
     *       {@link TransportStatus#NOT_CONNECTED}; the handler's {@code onDisconnected} runs once with INVALID_RKEY.
     *       The target's endpoint fails too ({@code onDisconnected} with PEER_FAILED). Connect again to go on.</li>
     * </ul>
     *
     * @return a request id, or a negative sentinel.
     */
    long read(long remoteAddress, RemoteKey remoteKey, int length,
        MutableDirectBuffer destination, int destinationOffset, CompletionHandler handler);

    /**
     * A one-sided read that is complete when this call returns (UCX's immediate completion): the bytes are copied on
     * the calling thread, no handler runs and nothing stays in flight, so no progress and no hand-off to the progress
     * thread are needed. Transports with {@link TransportCapability#READ_IMMEDIATE} (shm: the target's memory is mapped
     * into this process) do it whenever the region is mapped here; the others never do. The checks are those of
     * {@link #read} (token, bounds, the region still registered before and after the copy).
     *
     * @return {@link TransportStatus#OK} when the bytes are in {@code destination}; the status {@link #read} would
     *         have refused or completed the read with (INVALID_RKEY, OUT_OF_BOUNDS, NOT_CONNECTED, ...); or
     *         {@code null} when the read cannot complete on return (this transport cannot, or the region is not
     *         mapped here yet): post it with {@link #read} then.
     */
    default TransportStatus readImmediate(final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset)
    {
        return null;
    }

    /**
     * {@link #readImmediate} of {@code requests[from, to)}, in order, each one's answer left in its
     * {@link ReadRequest#immediateStatus}; stops at the first that cannot complete on return (its status null, it
     * and the rest to be posted). A transport that does them all under one guard (shm: one lock, where one lock per
     * read would order each copy's memory miss after the one before) lets the reads' misses overlap.
     *
     * @return the index of the first request not done, {@code to} when all were.
     */
    default int readImmediate(final ReadRequest[] requests, final int from, final int to)
    {
        for (int i = from; i < to; i++)
        {
            final ReadRequest r = requests[i];
            r.immediateStatus = readImmediate(r.remoteAddress, r.remoteKey, r.length, r.destination,
                r.destinationOffset);
            if (r.immediateStatus == null)
            {
                return i;
            }
        }
        return to;
    }

    /**
     * Several reads posted together (one doorbell on transports with {@link TransportCapability#READ_BATCH});
     * each completes through its own handler. Returns the number accepted, from the front.
     */
    default int readBatch(final ReadRequest[] requests, final int count)
    {
        for (int i = 0; i < count; i++)
        {
            final ReadRequest r = requests[i];
            final long id = read(r.remoteAddress, r.remoteKey, r.length, r.destination, r.destinationOffset, r.handler);
            if (id < 0)
            {
                return i;
            }
        }
        return count;
    }

    /** Convenience over {@link #read}: the future completes with OK or fails with a {@link TransportException}. */
    default CompletableFuture<Void> readAsync(
        final long remoteAddress, final RemoteKey remoteKey, final int length,
        final MutableDirectBuffer destination, final int destinationOffset)
    {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final long id = read(remoteAddress, remoteKey, length, destination, destinationOffset,
            (status, requestId) -> complete(future, status, "read"));
        if (id < 0)
        {
            complete(future, TransportStatus.fromSentinel(id), "read");
        }
        return future;
    }

    /** Convenience over {@link #send}. */
    default CompletableFuture<Void> sendAsync(final DirectBuffer buffer, final int offset, final int length)
    {
        final CompletableFuture<Void> future = new CompletableFuture<>();
        final long id = send(buffer, offset, length, (status, requestId) -> complete(future, status, "send"));
        if (id < 0)
        {
            complete(future, TransportStatus.fromSentinel(id), "send");
        }
        return future;
    }

    private static void complete(final CompletableFuture<Void> future, final TransportStatus status, final String op)
    {
        if (status == TransportStatus.OK)
        {
            future.complete(null);
        }
        else
        {
            future.completeExceptionally(new TransportException(status, op + " failed: " + status.description(), null));
        }
    }

    /**
     * Bind a memory window over {@code length} bytes at {@code address} of {@code region} (registered with
     * {@link MemoryAccess#BIND_WINDOWS}) for this endpoint's peer only: its {@link MemoryWindow#remoteKey()} reads the
     * range over this connection and nothing else, and stops working when the window is invalidated or closed, while
     * the region and every other key stay valid. Transports with {@link TransportCapability#MEMORY_WINDOWS}; the
     * others complete the future exceptionally with {@link UnsupportedOperationException}.
     *
     * @return completes with the window once the device has bound it (verbs: the bind work request completed on this
     *         endpoint's send queue), or exceptionally with a {@link TransportException} (not connected, the range not
     *         in the region, the region not registered for windows, the device refused).
     */
    default CompletableFuture<MemoryWindow> bindWindow(final MemoryRegion region, final long address, final long length)
    {
        return CompletableFuture.failedFuture(
            new UnsupportedOperationException("this transport has no memory windows"));
    }

    boolean isConnected();

    InetSocketAddress remoteAddress();

    /** Operations started and not yet completed (in flight plus pending). */
    int outstanding();

    /** The worker this endpoint belongs to. */
    Worker worker();

    /** Close; outstanding operations complete with {@link TransportStatus#CLOSED}. Idempotent. */
    @Override
    void close();

    /** A reusable description of one read, for {@link #readBatch}. Mutable so a caller can keep an array of them. */
    final class ReadRequest
    {
        public long remoteAddress;
        public RemoteKey remoteKey;
        public int length;
        public MutableDirectBuffer destination;
        public int destinationOffset;
        public CompletionHandler handler;
        /** What {@link #readImmediate(ReadRequest[], int, int)} answered for this read (null: not done on return). */
        public TransportStatus immediateStatus;

        public ReadRequest set(
            final long remoteAddress, final RemoteKey remoteKey, final int length,
            final MutableDirectBuffer destination, final int destinationOffset, final CompletionHandler handler)
        {
            this.remoteAddress = remoteAddress;
            this.remoteKey = remoteKey;
            this.length = length;
            this.destination = destination;
            this.destinationOffset = destinationOffset;
            this.handler = handler;
            return this;
        }
    }
}

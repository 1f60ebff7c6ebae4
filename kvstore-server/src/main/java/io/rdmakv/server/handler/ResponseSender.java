package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.cluster.ReadLeaseGrant;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.store.StoreException;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.log.RateLimitedLog;
import org.agrona.DirectBuffer;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The answers of the data plane: encodes every RESPONSE into one direct buffer sized for the largest answer
 * ({@link Limits#maxResponseBytes()}) and sends it without a completion handler (the transport copies it). A GET's
 * value is written straight into the buffer's value area, by the pool or by RocksDB, and sent from there.
 * <pre>
 *   response buffer: | RESPONSE header | status | value length | version | value area ...                |
 *                    0                                                   VALUE_OFFSET     maxResponseBytes
 *   valueBuffer() / valueView(): the value area, for a value read in place; then sendValue(length)
 * </pre>
 * A send refused with BACK_PRESSURED means the client does not read its answers: the endpoint is closed rather than
 * let it stall the server. Progress thread only; allocates only for text (errors, STATS, redirects).
 */
public final class ResponseSender
{
    private static final Logger LOG = LoggerFactory.getLogger(ResponseSender.class);
    /** A client that does not read its answers decides how often this happens. */
    private static final RateLimitedLog SLOW_READERS = RateLimitedLog.of(LOG);
    /** Every request may fail the same way while the store is sick: one site per kind. */
    private static final RateLimitedLog STORE_FAILURES = RateLimitedLog.of(LOG);
    /** A full disk is logged once at ERROR by the store's DiskFullGuard; the writes it failed, here. */
    private static final RateLimitedLog DISK_FULL_FAILURES = RateLimitedLog.of(LOG);
    /** Error reasons longer than this are cut. */
    private static final int MAX_REASON_CHARS = 512;

    private final ServerCounters counters;
    private final ResponseFlyweight response = new ResponseFlyweight();
    private final UnsafeBuffer responseBuffer;
    private final ByteBuffer responseValueView;
    /**
     * Set once by the start-up thread when the node joins its cluster, read by the request thread at every answer:
     * volatile, so the request thread cannot go on granting UNBOUNDED read leases it cached before.
     */
    private volatile ReadLeaseGrant readLease = ReadLeaseGrant.UNBOUNDED;

    /** @param maxResponseBytes the largest response: a maximal value, or STATS text. */
    public ResponseSender(final ServerCounters counters, final int maxResponseBytes)
    {
        this.counters = counters;
        final ByteBuffer responseBytes = ByteBuffer.allocateDirect(maxResponseBytes);
        this.responseBuffer = new UnsafeBuffer(responseBytes);
        this.responseValueView = responseBytes.duplicate();
    }

    /** How every answer from now on grants the client's read lease. */
    public void readLease(final ReadLeaseGrant grant)
    {
        this.readLease = grant;
    }

    /** The response buffer; a value to send goes at {@link ResponseFlyweight#VALUE_OFFSET}. */
    public MutableDirectBuffer valueBuffer()
    {
        return responseBuffer;
    }

    /** The longest value the response buffer holds. */
    public int valueCapacity()
    {
        return responseBuffer.capacity() - ResponseFlyweight.VALUE_OFFSET;
    }

    /** The value area as a ByteBuffer positioned at {@link ResponseFlyweight#VALUE_OFFSET}, for a RocksDB read. */
    public ByteBuffer valueView()
    {
        responseValueView.limit(responseValueView.capacity()).position(ResponseFlyweight.VALUE_OFFSET);
        return responseValueView;
    }

    /**
     * The value area as a ByteBuffer positioned {@link ValueRecord#HEADER_LENGTH} bytes before
     * {@link ResponseFlyweight#VALUE_OFFSET}: a RocksDB record read here puts its value in the value area, and its
     * header where the response header is written afterwards (the caller reads it from {@link #valueBuffer()} at {@code RECORD_OFFSET} before).
     */
    public ByteBuffer recordView()
    {
        responseValueView.limit(responseValueView.capacity()).position(RECORD_OFFSET);
        return responseValueView;
    }

    /** Index in {@link #valueBuffer()} of a record read through {@link #recordView()}. */
    public static final int RECORD_OFFSET = ResponseFlyweight.VALUE_OFFSET - ValueRecord.HEADER_LENGTH;

    /** OK with the value already in the value area. */
    public void sendValue(final Endpoint endpoint, final long correlationId, final int valueLength)
    {
        sendValue(endpoint, correlationId, valueLength, 0);
    }

    /** OK with the value already in the value area, and a version (a SCAN page: its snapshot id). */
    public void sendValue(final Endpoint endpoint, final long correlationId, final int valueLength, final long version)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        // status() zeroes the value length; write header fields, then restore the length (the bytes are in place).
        response.status(Status.OK);
        response.version(version);
        response.bodyLength(ResponseFlyweight.FIXED_BODY_LENGTH + valueLength);
        responseBuffer.putInt(ResponseFlyweight.VALUE_LENGTH_OFFSET, valueLength, ByteOrder.LITTLE_ENDIAN);
        send(endpoint, response.encodedLength());
    }

    /** OK with {@code value} copied into the value area, and its version (a GET answered after writes before it). */
    public void sendValue(final Endpoint endpoint, final long correlationId, final byte[] value, final long version)
    {
        valueBuffer().putBytes(ResponseFlyweight.VALUE_OFFSET, value);
        sendValue(endpoint, correlationId, value.length, version);
    }

    /**
     * A status with no value. Only an OK PUT that placed its value in the pool has a non-zero {@code version}: then
     * {@code location}, the index slot it published, goes along (the value's location).
     */
    public void answer(final Endpoint endpoint, final long correlationId, final Status status, final long version,
        final long location)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        response.status(status).version(version);
        if (version != 0)
        {
            response.location(location);
        }
        send(endpoint, response.encodedLength());
    }

    /**
     * An OK write: {@code extentVersion} and the index entry it published when placed in the pool (both 0 when not),
     * and the data version it wrote; a counter's record also carries its value back ({@code echoLength} > 0).
     */
    public void answerWritten(final Endpoint endpoint, final long correlationId, final long extentVersion,
        final long location, final long dataVersion, final DirectBuffer echo, final int echoIndex,
        final int echoLength)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        response.status(Status.OK).version(extentVersion);
        response.written(extentVersion != 0 ? location : 0, dataVersion);
        if (echoLength > 0)
        {
            final int at = ResponseFlyweight.VALUE_OFFSET + ResponseFlyweight.WRITTEN_LENGTH;
            responseBuffer.putBytes(at, echo, echoIndex, echoLength);
            response.bodyLength(ResponseFlyweight.FIXED_BODY_LENGTH + ResponseFlyweight.WRITTEN_LENGTH + echoLength);
            responseBuffer.putInt(ResponseFlyweight.VALUE_LENGTH_OFFSET,
                ResponseFlyweight.WRITTEN_LENGTH + echoLength, ByteOrder.LITTLE_ENDIAN);
        }
        send(endpoint, response.encodedLength());
    }

    /** OK to a TTL: the data version, and the expiry (u64, ms since the epoch, 0 = none) as the value. */
    public void answerExpiry(final Endpoint endpoint, final long correlationId, final long dataVersion,
        final long expiryMillis)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        response.status(Status.OK).version(dataVersion);
        responseBuffer.putLong(ResponseFlyweight.VALUE_OFFSET, expiryMillis, ByteOrder.LITTLE_ENDIAN);
        response.bodyLength(ResponseFlyweight.FIXED_BODY_LENGTH + 8);
        responseBuffer.putInt(ResponseFlyweight.VALUE_LENGTH_OFFSET, 8, ByteOrder.LITTLE_ENDIAN);
        send(endpoint, response.encodedLength());
    }

    /** A status with a version and no value (a refused condition: the key's current data version). */
    public void answerVersion(final Endpoint endpoint, final long correlationId, final Status status,
        final long version)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        response.status(status).version(version);
        send(endpoint, response.encodedLength());
    }

    /** An error status with a reason (cut to {@value #MAX_REASON_CHARS} characters). */
    public void answerError(final Endpoint endpoint, final long correlationId, final Status status, final String reason)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        response.status(status).text(reason.length() > MAX_REASON_CHARS ? reason.substring(0, MAX_REASON_CHARS) :
            reason);
        send(endpoint, response.encodedLength());
    }

    /** RocksDB failed: {@link #storeStatus} with its message (counted, and logged at a bounded rate). */
    public void answerStoreFailure(final Endpoint endpoint, final long correlationId, final StoreException ex)
    {
        answerStoreFailure(endpoint, correlationId, storeStatus(ex), ex.getMessage());
    }

    /** A write failed in RocksDB: STORE_ERROR or DISK_FULL with the store's message (counted, logged rate-limited). */
    public void answerStoreFailure(final Endpoint endpoint, final long correlationId, final Status status,
        final String reason)
    {
        noteStoreFailure(status, reason);
        answerError(endpoint, correlationId, status, reason);
    }

    /** Count and log (rate-limited) a store failure answered elsewhere ({@link #answerStoreFailure}'s first half). */
    public void noteStoreFailure(final Status status, final String reason)
    {
        counters.increment(ServerCounter.STORE_ERRORS);
        if (status == Status.DISK_FULL)
        {
            DISK_FULL_FAILURES.warn("store write failed, disk full: {}", reason);
        }
        else
        {
            STORE_FAILURES.error("store failure: {}", reason);
        }
    }

    /** The status a store failure is answered with: DISK_FULL for a full disk (ENOSPC), else STORE_ERROR. */
    static Status storeStatus(final StoreException ex)
    {
        return ex.noSpace() ? Status.DISK_FULL : Status.STORE_ERROR;
    }

    /** WRONG_NODE with the owning node's address. */
    public void answerWrongNode(final Endpoint endpoint, final long correlationId, final byte[] ownerAddress)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        response.status(Status.WRONG_NODE).value(ownerAddress);
        send(endpoint, response.encodedLength());
    }

    /** OK to an ATTACH, with {@code value} ({@code protocol.wire.AttachAnswer}: the window's key) unless null. */
    public void answerAttached(final Endpoint endpoint, final long correlationId, final byte[] value)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        response.status(Status.OK);
        if (value != null)
        {
            response.value(value);
        }
        send(endpoint, response.encodedLength());
    }

    /** OK with text (STATS). */
    public void answerText(final Endpoint endpoint, final long correlationId, final String text)
    {
        response.wrap(responseBuffer, 0, responseBuffer.capacity()).header(MessageType.RESPONSE, correlationId);
        response.status(Status.OK).text(text);
        send(endpoint, response.encodedLength());
    }

    private void send(final Endpoint endpoint, final int length)
    {
        // Stamped last, at the send: the grant counts from as late as possible on this node's clock.
        responseBuffer.putShort(ResponseFlyweight.READ_LEASE_OFFSET, (short)readLease.grantMillis(),
            ByteOrder.LITTLE_ENDIAN);
        final long result = endpoint.send(responseBuffer, 0, length, null);
        if (result < 0)
        {
            final TransportStatus status = TransportStatus.fromSentinel(result);
            counters.increment(ServerCounter.SEND_FAILURES);
            if (status == TransportStatus.BACK_PRESSURED)
            {
                // The client does not read its answers: it is dropped rather than let it stall the server.
                SLOW_READERS.warn("closing {}: response queue full", endpoint.remoteAddress());
                endpoint.close();
            }
        }
    }
}

package io.rdmakv.client.internal;

import io.rdmakv.client.Versioned;
import io.rdmakv.client.WriteResult;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.wire.Status;

import java.util.function.Function;

/**
 * A kind of request and the typed result it gives: GET a value or {@code null} (or, into a {@link ValueSink}, whether
 * it was found), PUT nothing, DELETE whether the key
 * existed, STATS the node's text. The only place a request slot's raw result (status, bytes, text) becomes what the API
 * returns, so no caller casts.
 *
 * @param <T> what the request returns.
 */
final class RequestType<T>
{
    static final RequestType<byte[]> GET = new RequestType<>(RequestSlot.TYPE_GET, RequestType::getResult);
    /** A GET whose value goes to the request slot's {@link ValueSink}: whether the key was found. */
    static final RequestType<Boolean> GET_INTO = new RequestType<>(RequestSlot.TYPE_GET, RequestType::getIntoResult);
    static final RequestType<Void> PUT = new RequestType<>(RequestSlot.TYPE_PUT, RequestType::putResult);
    static final RequestType<Boolean> DELETE = new RequestType<>(RequestSlot.TYPE_DELETE, RequestType::deleteResult);
    static final RequestType<String> STATS = new RequestType<>(RequestSlot.TYPE_STATS, RequestType::statsResult);
    /** A KEY_SCAN: the answer's page (see {@link io.rdmakv.protocol.wire.KeyScanPage}). */
    static final RequestType<byte[]> KEY_SCAN = new RequestType<>(RequestSlot.TYPE_KEY_SCAN,
        RequestType::keyScanResult);
    /** A GET that also gives the value's data version: the value and its version, or null when absent. */
    static final RequestType<Versioned> GET_VERSIONED =
        new RequestType<>(RequestSlot.TYPE_GET, RequestType::versionedResult);
    /** A conditional PUT or DELETE, or a PUT with an expiry: applied (new version) or refused (present version). */
    static final RequestType<WriteResult> CONDITIONAL =
        new RequestType<>(RequestSlot.TYPE_RECORD, RequestType::conditionalResult);
    /** An INCREMENT: the new value. */
    static final RequestType<Long> INCREMENT = new RequestType<>(RequestSlot.TYPE_RECORD, RequestType::incrementResult);
    /** EXPIRE or PERSIST: whether the key existed. */
    static final RequestType<Boolean> EXPIRY = new RequestType<>(RequestSlot.TYPE_RECORD, RequestType::deleteResult);
    /** An atomic multi-key write (BATCH_WRITE): nothing, or the node's refusal (nothing written). */
    static final RequestType<Void> BATCH = new RequestType<>(RequestSlot.TYPE_BATCH, RequestType::putResult);
    /** TTL: the expiry in ms since the epoch (0: none), or -2 when the key is absent. */
    static final RequestType<Long> TTL = new RequestType<>(RequestSlot.TYPE_RECORD, RequestType::ttlResult);

    /** The request slot's {@code type} code. */
    final int code;
    private final Function<RequestSlot, T> result;

    private RequestType(final int code, final Function<RequestSlot, T> result)
    {
        this.code = code;
        this.result = result;
    }

    /**
     * The result of a completed request slot.
     *
     * @throws KvException the request slot's failure, or the node's error answer as a {@link KvException} of its kind.
     * @throws RuntimeException a GET's {@link ValueSink} refusal (say, a full fixed-size destination).
     */
    T outcome(final RequestSlot requestSlot)
    {
        if (requestSlot.failure != null)
        {
            throw requestSlot.failure;
        }
        return result.apply(requestSlot);
    }

    private static byte[] getResult(final RequestSlot requestSlot)
    {
        if (requestSlot.resultStatus == Status.OK)
        {
            return requestSlot.resultValue;
        }
        if (requestSlot.resultStatus == Status.NOT_FOUND)
        {
            return null;
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    private static Boolean getIntoResult(final RequestSlot requestSlot)
    {
        if (requestSlot.sinkFailure != null)
        {
            throw requestSlot.sinkFailure;
        }
        if (requestSlot.resultStatus == Status.OK || requestSlot.resultStatus == Status.NOT_FOUND)
        {
            return requestSlot.resultStatus == Status.OK;
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    private static Void putResult(final RequestSlot requestSlot)
    {
        if (requestSlot.resultStatus == Status.OK)
        {
            return null;
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    private static Boolean deleteResult(final RequestSlot requestSlot)
    {
        if (requestSlot.resultStatus == Status.OK || requestSlot.resultStatus == Status.NOT_FOUND)
        {
            return requestSlot.resultStatus == Status.OK;
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    private static byte[] keyScanResult(final RequestSlot requestSlot)
    {
        if (requestSlot.resultStatus == Status.OK)
        {
            return requestSlot.resultValue;
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    private static Versioned versionedResult(final RequestSlot requestSlot)
    {
        final byte[] value = getResult(requestSlot);
        return value == null ? null : new Versioned(value, requestSlot.resultVersion);
    }

    private static WriteResult conditionalResult(final RequestSlot requestSlot)
    {
        if (requestSlot.resultStatus == Status.OK)
        {
            return WriteResult.applied(requestSlot.resultWritten);
        }
        if (requestSlot.resultStatus == Status.CONDITION_FAILED)
        {
            return WriteResult.refused(requestSlot.resultVersion);
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    private static Long incrementResult(final RequestSlot requestSlot)
    {
        if (requestSlot.resultStatus == Status.OK)
        {
            final byte[] answer = requestSlot.resultValue;
            if (answer == null || answer.length <= ResponseFlyweight.WRITTEN_LENGTH)
            {
                // A retry answered from a record the node restored at start (it kept only the status): applied once,
                // its value not carried again. A record of this node's run carries the value (WriteIds).
                throw KvException.of(KvError.SERVER_ERROR, "the increment was applied (a retry answered from its " +
                    "record); its new value is not known to this call: read the key");
            }
            return Long.parseLong(new String(answer, ResponseFlyweight.WRITTEN_LENGTH,
                answer.length - ResponseFlyweight.WRITTEN_LENGTH, StandardCharsets.US_ASCII));
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    private static Long ttlResult(final RequestSlot requestSlot)
    {
        if (requestSlot.resultStatus == Status.OK)
        {
            return ByteBuffer.wrap(requestSlot.resultValue).order(ByteOrder.LITTLE_ENDIAN).getLong();
        }
        if (requestSlot.resultStatus == Status.NOT_FOUND)
        {
            return -2L;
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    private static String statsResult(final RequestSlot requestSlot)
    {
        if (requestSlot.resultStatus == Status.OK)
        {
            return requestSlot.resultText == null ? "" : requestSlot.resultText;
        }
        throw serverFailure(requestSlot.resultStatus, requestSlot.resultText);
    }

    /** A node's error answer as the exception of its kind, naming the status and the node's text. */
    static KvException serverFailure(final Status status, final String detail)
    {
        final String message = "server answered " + status + " (" + status.description() + ")" +
            (detail == null || detail.isEmpty() ? "" : ": " + detail);
        return KvException.of(errorOf(status), message);
    }

    /** The client's stable code for a node's status (statuses added later map to SERVER_ERROR). */
    static KvError errorOf(final Status status)
    {
        return switch (status)
        {
            case KEY_TOO_LARGE -> KvError.KEY_TOO_LARGE;
            case VALUE_TOO_LARGE -> KvError.VALUE_TOO_LARGE;
            case POOL_FULL, DISK_FULL -> KvError.STORE_FULL;
            case STORE_ERROR -> KvError.STORE_FAILED;
            case BUSY -> KvError.SERVER_BUSY;
            case MALFORMED, UNKNOWN_TYPE, UNSUPPORTED_VERSION -> KvError.REQUEST_REFUSED;
            case NOT_AN_INTEGER -> KvError.NOT_AN_INTEGER;
            case UNAUTHENTICATED -> KvError.AUTHENTICATION_FAILED;
            case FORBIDDEN -> KvError.FORBIDDEN;
            case CROSSSLOT -> KvError.CROSSSLOT;
            default -> KvError.SERVER_ERROR;
        };
    }
}

package io.rdmakv.client.internal;

import io.rdmakv.client.KvAuthenticationException;
import io.rdmakv.client.KvBackPressureException;
import io.rdmakv.client.KvConnectionException;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.KvServerException;
import io.rdmakv.client.KvTimeoutException;
import io.rdmakv.protocol.wire.Status;
import org.junit.jupiter.api.Test;

import java.util.EnumMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The exception contract of the client: each code has its documented subclass, each node status its code. */
class KvErrorMappingTest
{
    @Test
    void shouldGiveEveryCodeItsDocumentedSubclass()
    {
        final Map<KvError, Class<? extends KvException>> expected = new EnumMap<>(KvError.class);
        expected.put(KvError.TIMED_OUT, KvTimeoutException.class);
        expected.put(KvError.CONNECTION_FAILED, KvConnectionException.class);
        expected.put(KvError.TRANSPORT_FAILED, KvConnectionException.class);
        expected.put(KvError.REJECTED, KvConnectionException.class);
        expected.put(KvError.AUTHENTICATION_FAILED, KvAuthenticationException.class);
        expected.put(KvError.BACK_PRESSURE, KvBackPressureException.class);
        for (final KvError error : new KvError[] {KvError.KEY_TOO_LARGE, KvError.VALUE_TOO_LARGE, KvError.STORE_FULL,
            KvError.STORE_FAILED, KvError.SERVER_BUSY, KvError.REQUEST_REFUSED, KvError.SERVER_ERROR, KvError.FORBIDDEN,
            KvError.NOT_AN_INTEGER, KvError.CROSSSLOT})
        {
            expected.put(error, KvServerException.class);
        }
        expected.put(KvError.PROTOCOL_ERROR, KvException.class);
        expected.put(KvError.TOO_MANY_REDIRECTS, KvException.class);
        expected.put(KvError.CLOSED, KvException.class);
        assertEquals(KvError.values().length, expected.size(), "every code has a documented kind");

        final Throwable cause = new IllegalStateException("cause");
        for (final KvError error : KvError.values())
        {
            final KvException ex = KvException.of(error, "message", cause);
            assertSame(expected.get(error), ex.getClass(), error.name());
            assertEquals(error, ex.error());
            assertEquals("message", ex.getMessage());
        }
        assertEquals(0, KvException.of(KvError.BACK_PRESSURE, "full").getStackTrace().length,
            "back-pressure is flow control: no stack trace");
    }

    @Test
    void shouldMapEveryNodeStatusToACode()
    {
        assertEquals(KvError.KEY_TOO_LARGE, RequestType.errorOf(Status.KEY_TOO_LARGE));
        assertEquals(KvError.VALUE_TOO_LARGE, RequestType.errorOf(Status.VALUE_TOO_LARGE));
        assertEquals(KvError.STORE_FULL, RequestType.errorOf(Status.POOL_FULL));
        assertEquals(KvError.STORE_FULL, RequestType.errorOf(Status.DISK_FULL));
        assertEquals(KvError.STORE_FAILED, RequestType.errorOf(Status.STORE_ERROR));
        assertEquals(KvError.SERVER_BUSY, RequestType.errorOf(Status.BUSY));
        assertEquals(KvError.REQUEST_REFUSED, RequestType.errorOf(Status.MALFORMED));
        assertEquals(KvError.REQUEST_REFUSED, RequestType.errorOf(Status.UNKNOWN_TYPE));
        assertEquals(KvError.REQUEST_REFUSED, RequestType.errorOf(Status.UNSUPPORTED_VERSION));
        assertEquals(KvError.AUTHENTICATION_FAILED, RequestType.errorOf(Status.UNAUTHENTICATED));
        assertEquals(KvError.FORBIDDEN, RequestType.errorOf(Status.FORBIDDEN));
        assertEquals(KvError.NOT_AN_INTEGER, RequestType.errorOf(Status.NOT_AN_INTEGER));
        assertEquals(KvError.CROSSSLOT, RequestType.errorOf(Status.CROSSSLOT));
        for (final Status status : Status.values())
        {
            assertTrue(RequestType.errorOf(status) != null, status.name());
        }
        final KvException full = RequestType.serverFailure(Status.POOL_FULL, "no room for 70000 bytes");
        assertInstanceOf(KvServerException.class, full);
        assertEquals(KvError.STORE_FULL, full.error());
        assertTrue(full.getMessage().contains("POOL_FULL") && full.getMessage().contains("no room"),
            full.getMessage());
    }
}

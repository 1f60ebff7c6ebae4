package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** KEY_SCAN (code 20): the request decodes as encoded, bad ones are refused by the decoder, the page round-trips. */
class KeyScanMessagesTest
{
    private final UnsafeBuffer message = new UnsafeBuffer(new byte[512]);

    @Test
    void shouldDecodeWhatWasEncoded()
    {
        final byte[] body = KeyScanRequestFlyweight.body(7, 9, 100, KeyScanRequestFlyweight.WITH_VALUES,
            utf8("from"), utf8("to!"), utf8("k*"));
        assertEquals(7, KeyScanRequestFlyweight.firstSlotOfBody(new UnsafeBuffer(body), 0));
        final int length = encode(body);
        final MessageDecoder decoder = new MessageDecoder();
        assertEquals(MessageType.KEY_SCAN_REQUEST, decoder.decode(message, 0, length));
        assertEquals(42, decoder.correlationId());
        final KeyScanRequestFlyweight r = decoder.keyScanRequest();
        assertEquals(7, r.firstSlot());
        assertEquals(9, r.lastSlot());
        assertEquals(100, r.count());
        assertTrue(r.withValues());
        assertFalse(r.fromInclusive());
        assertEquals("from", text(r.fromIndex(), r.fromLength()));
        assertEquals("to!", text(r.toIndex(), r.toLength()));
        assertEquals("k*", text(r.matchIndex(), r.matchLength()));
        assertEquals(20, MessageType.KEY_SCAN_REQUEST.code());
    }

    @Test
    void shouldRefuseBadRequests()
    {
        final byte[] body = KeyScanRequestFlyweight.body(0, 16383, 1, 0, new byte[0], new byte[0], utf8("x"));
        final byte[] zeroCount = body.clone();
        zeroCount[4] = 0;
        assertEquals(ErrorCode.MALFORMED, refusal(zeroCount));
        final byte[] slotTooHigh = body.clone();
        slotTooHigh[3] = (byte)0x40; // last hash slot 16384
        assertEquals(ErrorCode.MALFORMED, refusal(slotTooHigh));
        final byte[] matchTooLong = body.clone();
        matchTooLong[12] = 9; // match of 9 bytes in a body holding 1
        assertEquals(ErrorCode.BAD_LENGTH, refusal(matchTooLong));
        assertThrows(IllegalArgumentException.class, () -> KeyScanRequestFlyweight.body(5, 4, 1, 0, new byte[0],
            new byte[0], new byte[0]));
        assertThrows(IllegalArgumentException.class, () -> KeyScanRequestFlyweight.body(0, 0, 0, 0, new byte[0],
            new byte[0], new byte[0]));
    }

    @Test
    void shouldReadAPageBackAndRefuseATruncatedOne()
    {
        final UnsafeBuffer page = new UnsafeBuffer(new byte[256]);
        int at = KeyScanPage.writeHeader(page, 3, 12, KeyScanPage.END, 2, utf8("last"), 4);
        at = KeyScanPage.writeEntry(page, at, utf8("a"), 0, 1, utf8("va"));
        at = KeyScanPage.writeEntry(page, at, utf8("bb"), 0, 2, utf8(""));
        final int end = at;
        final KeyScanPage.Decoded decoded = KeyScanPage.read(page, 3, end - 3, true);
        assertEquals(12, decoded.nextSlot());
        assertTrue(decoded.end());
        assertArrayEquals(utf8("last"), decoded.resumeKey());
        assertEquals(2, decoded.keys().size());
        assertArrayEquals(utf8("bb"), decoded.keys().get(1));
        assertArrayEquals(utf8("va"), decoded.values().get(0));
        assertThrows(IllegalArgumentException.class, () -> KeyScanPage.read(page, 3, end - 4, true));
        assertThrows(IllegalArgumentException.class, () -> KeyScanPage.read(page, 3, end - 3, false), "keys only");
    }

    private int encode(final byte[] body)
    {
        final KeyScanRequestFlyweight request = new KeyScanRequestFlyweight();
        request.wrap(message, 0, message.capacity()).request(42, new UnsafeBuffer(body), 0, body.length);
        return request.encodedLength();
    }

    private ErrorCode refusal(final byte[] body)
    {
        final int length = encode(body);
        return assertThrows(ProtocolException.class, () -> new MessageDecoder().decode(message, 0, length))
            .errorCode();
    }

    private String text(final int index, final int length)
    {
        final byte[] b = new byte[length];
        message.getBytes(index, b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static byte[] utf8(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

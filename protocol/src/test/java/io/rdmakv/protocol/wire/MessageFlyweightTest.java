package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.IndexEntry;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class MessageFlyweightTest
{
    private static final byte[] KEY = "order:2024:17".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE = "{\"qty\":3,\"sku\":\"A-17\"}".getBytes(StandardCharsets.US_ASCII);

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final MessageDecoder decoder = new MessageDecoder();

    @Test
    void shouldRoundTripGetAndDeleteRequests()
    {
        for (final MessageType type : new MessageType[] {MessageType.GET_REQUEST, MessageType.DELETE_REQUEST})
        {
            final KeyRequestFlyweight request = new KeyRequestFlyweight().wrap(buffer, 8, 1024);
            request.header(type, 0x1122_3344_5566_7788L);
            request.key(KEY);
            final int length = request.encodedLength();
            assertEquals(16 + 4 + KEY.length, length);

            assertEquals(type, decoder.decode(buffer, 8, length));
            final KeyRequestFlyweight decoded = decoder.keyRequest();
            assertEquals(0x1122_3344_5566_7788L, decoded.correlationId());
            assertEquals(KEY.length, decoded.keyLength());
            final UnsafeBuffer key = new UnsafeBuffer(new byte[KEY.length]);
            decoded.getKey(key, 0);
            assertArrayEquals(KEY, key.byteArray());
            assertEquals(1, buffer.getByte(8), "version byte first");
            assertEquals(type.code(), buffer.getByte(9));
        }
    }

    @Test
    void shouldRoundTripPutRequestFromBuffers()
    {
        final UnsafeBuffer key = new UnsafeBuffer(KEY);
        final UnsafeBuffer value = new UnsafeBuffer(VALUE);
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, 4096);
        put.header(MessageType.PUT_REQUEST, 9);
        put.keyAndValue(key, 0, KEY.length, value, 0, VALUE.length);

        assertEquals(MessageType.PUT_REQUEST, decoder.decode(buffer, 0, put.encodedLength()));
        final PutRequestFlyweight decoded = decoder.putRequest();
        assertEquals(9, decoded.correlationId());
        final byte[] k = new byte[decoded.keyLength()];
        buffer.getBytes(decoded.keyIndex(), k);
        final byte[] v = new byte[decoded.valueLength()];
        buffer.getBytes(decoded.valueIndex(), v);
        assertArrayEquals(KEY, k);
        assertArrayEquals(VALUE, v);
    }

    @Test
    void shouldCarryAReadLeaseGrantThatStatusClears()
    {
        final ResponseFlyweight response = new ResponseFlyweight().wrap(buffer, 0, 4096)
            .header(MessageType.RESPONSE, 3);
        response.status(Status.OK).readLeaseMillis(1_850);
        assertEquals(1_850, response.readLeaseMillis());
        final ResponseFlyweight decoded = new ResponseFlyweight().wrap(buffer, 0, response.encodedLength()).validate();
        assertEquals(1_850, decoded.readLeaseMillis());
        response.readLeaseMillis(ResponseFlyweight.READ_LEASE_UNBOUNDED);
        assertEquals(0xFFFF, response.readLeaseMillis());
        response.status(Status.NOT_FOUND);
        assertEquals(ResponseFlyweight.READ_LEASE_NONE, response.readLeaseMillis());
        assertThrows(IllegalArgumentException.class, () -> response.readLeaseMillis(0x10000));
    }

    @Test
    void shouldRoundTripResponsesAndStats()
    {
        final ResponseFlyweight response = new ResponseFlyweight().wrap(buffer, 0, 4096);
        response.header(MessageType.RESPONSE, 77);
        response.status(Status.OK).version(123).value(VALUE);
        assertEquals(MessageType.RESPONSE, decoder.decode(buffer, 0, response.encodedLength()));
        assertEquals(Status.OK, decoder.response().status());
        assertEquals(123, decoder.response().version());
        assertArrayEquals(VALUE, decoder.response().value());

        response.wrap(buffer, 0, 4096).header(MessageType.RESPONSE, 78);
        response.status(Status.WRONG_NODE).text("10.0.0.7:7400");
        assertEquals(MessageType.RESPONSE, decoder.decode(buffer, 0, response.encodedLength()));
        assertEquals(Status.WRONG_NODE, decoder.response().status());
        assertEquals("10.0.0.7:7400", decoder.response().text());

        response.wrap(buffer, 0, 4096).header(MessageType.RESPONSE, 79);
        response.status(Status.NOT_FOUND);
        assertEquals(16 + 16, response.encodedLength());
        decoder.decode(buffer, 0, response.encodedLength());
        assertEquals(0, decoder.response().valueLength());
        assertEquals(0L, decoder.response().location(), "no location without its eight bytes");

        // An OK PUT names the index slot it published.
        final long entry = IndexEntry.encode(0x1234, 4096 + 640, 128);
        response.wrap(buffer, 0, 4096).header(MessageType.RESPONSE, 81);
        response.status(Status.OK).version(456).location(entry);
        assertEquals(16 + 16 + ResponseFlyweight.LOCATION_LENGTH, response.encodedLength());
        assertEquals(MessageType.RESPONSE, decoder.decode(buffer, 0, response.encodedLength()));
        assertEquals(456, decoder.response().version());
        assertEquals(entry, decoder.response().location());

        final MessageHeaderFlyweight stats = new MessageHeaderFlyweight().wrap(buffer, 0, 4096);
        stats.header(MessageType.STATS_REQUEST, 80);
        assertEquals(MessageType.STATS_REQUEST, decoder.decode(buffer, 0, stats.encodedLength()));
        assertEquals(80, decoder.correlationId());
    }

    @Test
    void shouldGiveEveryStatusAStableCodeAndText()
    {
        final Status[] values = Status.values();
        for (int i = 0; i < values.length; i++)
        {
            assertEquals(i, values[i].code());
            assertEquals(values[i], Status.fromCode(i));
            assertEquals(false, values[i].description().isEmpty());
        }
        assertEquals(11, Status.POOL_FULL.code());
        assertEquals(null, Status.fromCode(values.length));
        assertEquals(Status.MALFORMED, Status.of(ErrorCode.TRUNCATED));
        assertEquals(Status.KEY_TOO_LARGE, Status.of(ErrorCode.KEY_TOO_LARGE));
    }

    @Test
    void shouldRejectEveryTruncationWithATypedError()
    {
        final int[] lengths = {encodeGet(), encodePut(), encodeResponse(), encodeStats()};
        final int[] starts = {0, 1024, 2048, 3072};
        for (int m = 0; m < lengths.length; m++)
        {
            for (int length = 0; length < lengths[m]; length++)
            {
                final int start = starts[m];
                final int truncated = length;
                final ProtocolException ex = assertThrows(ProtocolException.class,
                    () -> decoder.decode(buffer, start, truncated), "message " + m + " at length " + length);
                assertEquals(ErrorCode.TRUNCATED, ex.errorCode(), "message " + m + " at length " + length);
            }
            decoder.decode(buffer, starts[m], lengths[m]);
        }
    }

    @Test
    void shouldRejectWrongVersionUnknownTypeAndLyingLengths()
    {
        final int get = encodeGet();
        buffer.putByte(0, (byte)2);
        assertError(ErrorCode.UNSUPPORTED_VERSION, 0, get);
        buffer.putByte(0, (byte)1);

        buffer.putByte(1, (byte)99);
        assertError(ErrorCode.UNKNOWN_TYPE, 0, get);
        buffer.putByte(1, (byte)MessageType.MULTI_GET_REQUEST.code());
        assertError(ErrorCode.UNKNOWN_TYPE, 0, get);
        buffer.putByte(1, (byte)MessageType.GET_REQUEST.code());

        buffer.putInt(4, -1, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.TRUNCATED, 0, get);
        buffer.putInt(4, get - 16 - 1, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.BAD_LENGTH, 0, get);
        buffer.putInt(4, get - 16, ByteOrder.LITTLE_ENDIAN);

        buffer.putShort(16, (short)(KEY.length + 1), ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.BAD_LENGTH, 0, get);
        buffer.putShort(16, (short)0xFFFF, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.KEY_TOO_LARGE, 0, get);
        buffer.putShort(16, (short)KEY.length, ByteOrder.LITTLE_ENDIAN);
        assertEquals(MessageType.GET_REQUEST, decoder.decode(buffer, 0, get));

        final int put = encodePut();
        final int putStart = 1024;
        buffer.putInt(putStart + PutRequestFlyweight.VALUE_LENGTH_OFFSET, -1, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.BAD_LENGTH, putStart, put);
        buffer.putInt(putStart + PutRequestFlyweight.VALUE_LENGTH_OFFSET, VALUE.length, ByteOrder.LITTLE_ENDIAN);

        final int response = encodeResponse();
        buffer.putShort(2048 + ResponseFlyweight.STATUS_OFFSET, (short)999, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.MALFORMED, 2048, response);

        final int stats = encodeStats();
        buffer.putInt(3072 + 4, 4, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.BAD_LENGTH, 3072, stats + 4);
        assertEquals(80, decoder.correlationId(), "correlation id available to answer a malformed request");
    }

    @Test
    void shouldRejectOversizedPutsAndKeysWhenEncoding()
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 0, 4096);
        put.header(MessageType.PUT_REQUEST, 1);
        assertEquals(ErrorCode.KEY_TOO_LARGE, assertThrows(ProtocolException.class,
            () -> put.keyAndValue(new byte[ProtocolLimits.MAX_KEY_LENGTH + 1], VALUE)).errorCode());
        assertEquals(ErrorCode.TRUNCATED, assertThrows(ProtocolException.class,
            () -> put.keyAndValue(KEY, new byte[5000])).errorCode(), "does not fit the wrapped 4096 bytes");
        assertEquals(ErrorCode.TRUNCATED, assertThrows(ProtocolException.class,
            () -> new KeyRequestFlyweight().wrap(buffer, 4090, 16)).errorCode());
    }

    @Test
    void shouldOnlyEverThrowProtocolExceptionOnRandomInput()
    {
        final Random random = new Random(17);
        final byte[] bytes = new byte[256];
        final UnsafeBuffer garbage = new UnsafeBuffer(bytes);
        int accepted = 0;
        for (int i = 0; i < 5_000; i++)
        {
            random.nextBytes(bytes);
            // Bias towards plausible headers so the body checks are exercised too.
            bytes[0] = (byte)(random.nextInt(4) == 0 ? random.nextInt() : 1);
            bytes[1] = (byte)(random.nextInt(4) == 0 ? random.nextInt() : 1 + random.nextInt(6));
            final int length = random.nextInt(bytes.length + 1);
            if (random.nextBoolean() && length >= 16)
            {
                garbage.putInt(4, length - 16, ByteOrder.LITTLE_ENDIAN);
            }
            try
            {
                decoder.decode(garbage, 0, length);
                accepted++;
            }
            catch (final ProtocolException expected)
            {
                // The only permitted failure.
            }
        }
        assertEquals(true, accepted < 5_000);
    }

    private void assertError(final ErrorCode expected, final int offset, final int length)
    {
        final ProtocolException ex = assertThrows(ProtocolException.class, () -> decoder.decode(buffer, offset, length));
        assertEquals(expected, ex.errorCode(), ex.getMessage());
    }

    private int encodeGet()
    {
        return new KeyRequestFlyweight().wrap(buffer, 0, 1024).header(MessageType.GET_REQUEST, 1).key(KEY)
            .encodedLength();
    }

    private int encodePut()
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(buffer, 1024, 1024);
        put.header(MessageType.PUT_REQUEST, 2);
        return put.keyAndValue(KEY, VALUE).encodedLength();
    }

    private int encodeResponse()
    {
        final ResponseFlyweight response = new ResponseFlyweight().wrap(buffer, 2048, 1024);
        response.header(MessageType.RESPONSE, 3);
        return response.status(Status.OK).version(4).value(VALUE).encodedLength();
    }

    private int encodeStats()
    {
        return new MessageHeaderFlyweight().wrap(buffer, 3072, 1024).header(MessageType.STATS_REQUEST, 80)
            .encodedLength();
    }
}

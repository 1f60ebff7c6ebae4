package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class AttachAnswerTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));

    /** An OK answer with {@code value} (null: none), decoded as a client reads it. */
    private ResponseFlyweight answer(final byte[] value)
    {
        final ResponseFlyweight response = new ResponseFlyweight().wrap(buffer, 0, buffer.capacity())
            .header(MessageType.RESPONSE, 0);
        response.status(Status.OK);
        if (value != null)
        {
            response.value(value);
        }
        final int length = response.encodedLength();
        final ResponseFlyweight read = new ResponseFlyweight().wrap(buffer, 0, length);
        read.validate();
        return read;
    }

    @Test
    void shouldRoundTripAWindowKey()
    {
        final byte[] key = new byte[32];
        for (int i = 0; i < key.length; i++)
        {
            key[i] = (byte)(0xF0 - i);
        }
        final byte[] value = AttachAnswer.windowKey(key);
        assertEquals(33, value.length);
        assertEquals(AttachAnswer.KIND_WINDOW_KEY, value[0], "stable wire kind");
        final ResponseFlyweight read = answer(value);
        assertEquals(Status.OK, read.status());
        assertArrayEquals(key, AttachAnswer.windowKey(read));
    }

    @Test
    void shouldReadAnAnswerWithoutAValueAsNoWindow()
    {
        // What every node sent before windows, and what a node sends over tcp and shm or when the bind failed.
        assertNull(AttachAnswer.windowKey(answer(null)));
    }

    @Test
    void shouldRefuseAValueThatIsNoWindowKey()
    {
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> AttachAnswer.windowKey(answer(new byte[] {2, 1, 2, 3}))).errorCode(), "unknown kind");
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> AttachAnswer.windowKey(answer(new byte[] {1}))).errorCode(), "a kind without a key");
        assertThrows(IllegalArgumentException.class, () -> AttachAnswer.windowKey(new byte[0]));
    }
}

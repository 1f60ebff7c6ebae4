package io.rdmakv.server.handler;

import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.server.session.Access;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** An atomic batch needs readwrite, and every one of its keys inside the user's prefixes. */
class BatchAccessCheckTest
{
    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final MessageDecoder decoder = new MessageDecoder();

    private String check(final Access access, final String... keys)
    {
        final List<byte[]> k = new ArrayList<>();
        final List<byte[]> v = new ArrayList<>();
        for (final String key : keys)
        {
            k.add(key.getBytes(StandardCharsets.UTF_8));
            v.add(new byte[] {1});
        }
        final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(k, v);
        final BatchWriteRequestFlyweight w = new BatchWriteRequestFlyweight().wrap(message, 0, message.capacity());
        w.header(MessageType.BATCH_WRITE_REQUEST, 1).write(keys.length, new UnsafeBuffer(entries), 0, entries.length);
        return AccessCheck.refusal(access, decoder.decode(message, 0, w.encodedLength()), decoder);
    }

    @Test
    void shouldNeedReadwriteAndEveryKeyInsideThePrefixes()
    {
        final Access writer = new Access("user w", Role.READWRITE,
            new byte[][] {"{app}".getBytes(StandardCharsets.UTF_8)});
        assertNull(check(writer, "{app}:a", "{app}:b"));
        final String outside = check(writer, "{app}:a", "{app}:b", "{other}:c");
        assertTrue(outside != null && outside.contains("outside the user's key prefixes"), outside);
        final Access reader = new Access("user r", Role.READ, new byte[0][]);
        final String readOnly = check(reader, "{app}:a");
        assertTrue(readOnly != null && readOnly.contains("readwrite"), readOnly);
    }
}

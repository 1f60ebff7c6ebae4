package io.rdmakv.server.handler;

import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageDecoder;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.server.session.Access;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The data path's one authorisation check: the role each request type needs, and the key inside the prefixes. */
class AccessCheckTest
{
    private final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
    private final MessageDecoder decoder = new MessageDecoder();

    private static Access access(final Role role, final String... prefixes)
    {
        final byte[][] bytes = new byte[prefixes.length][];
        for (int i = 0; i < prefixes.length; i++)
        {
            bytes[i] = prefixes[i].getBytes(StandardCharsets.UTF_8);
        }
        return new Access("user u", role, bytes);
    }

    private String check(final Access access, final MessageType type, final String key)
    {
        final int length;
        final UnsafeBuffer k = new UnsafeBuffer(key.getBytes(StandardCharsets.UTF_8));
        if (type == MessageType.PUT_REQUEST)
        {
            final PutRequestFlyweight put = new PutRequestFlyweight().wrap(message, 0, message.capacity());
            put.header(type, 1).keyAndValue(k, 0, key.length(), k, 0, key.length());
            length = put.encodedLength();
        }
        else if (type == MessageType.GET_REQUEST || type == MessageType.DELETE_REQUEST)
        {
            final KeyRequestFlyweight request = new KeyRequestFlyweight().wrap(message, 0, message.capacity());
            request.header(type, 1).key(k, 0, key.length());
            length = request.encodedLength();
        }
        else if (type == MessageType.STATS_REQUEST)
        {
            final MessageHeaderFlyweight header = new MessageHeaderFlyweight().wrap(message, 0, message.capacity());
            header.header(type, 1);
            length = header.encodedLength();
        }
        else
        {
            return AccessCheck.refusal(access, type, decoder); // decided by the type alone
        }
        assertEquals(type, decoder.decode(message, 0, length));
        return AccessCheck.refusal(access, type, decoder);
    }

    @Test
    void shouldGiveEachRoleItsRequests()
    {
        final Access read = access(Role.READ);
        assertNull(check(read, MessageType.GET_REQUEST, "any"));
        assertNull(check(read, MessageType.STATS_REQUEST, ""));
        assertEquals("user u (read) may not PUT: it needs the role readwrite", check(read, MessageType.PUT_REQUEST,
            "k"));
        assertTrue(check(read, MessageType.DELETE_REQUEST, "k").contains("needs the role readwrite"));

        final Access write = access(Role.READWRITE);
        assertNull(check(write, MessageType.PUT_REQUEST, "k"));
        assertNull(check(write, MessageType.DELETE_REQUEST, "k"));
        assertTrue(check(write, MessageType.SCAN_REQUEST, "").contains("needs the role admin"),
            "a backup's scan needs admin");
        assertTrue(check(access(Role.ADMIN, "x"), MessageType.PUT_REQUEST, "k").contains("outside"));
        assertTrue(Access.SHARED_SECRET.unlimited() && Access.OPEN.unlimited());
        assertTrue(!access(Role.ADMIN, "x").unlimited() && !read.unlimited());
    }

    @Test
    void shouldKeepKeysInsideThePrefixes()
    {
        final Access app = access(Role.READWRITE, "app:", "cache:");
        assertNull(check(app, MessageType.PUT_REQUEST, "app:1"));
        assertNull(check(app, MessageType.GET_REQUEST, "cache:x"));
        assertTrue(check(app, MessageType.PUT_REQUEST, "ap").contains("outside the user's key prefixes"));
        assertTrue(check(app, MessageType.DELETE_REQUEST, "other").contains("outside"));
        assertTrue(check(app, MessageType.GET_REQUEST, "other").contains("may not GET this key"));
    }

    @Test
    void shouldLetAReadUserWithoutPrefixesScanAndNoUserLimitedToPrefixes()
    {
        assertNull(check(access(Role.READ), MessageType.KEY_SCAN_REQUEST, ""));
        assertNull(check(access(Role.READWRITE), MessageType.KEY_SCAN_REQUEST, ""));
        assertTrue(check(access(Role.READWRITE, "app:"), MessageType.KEY_SCAN_REQUEST, "")
            .contains("limited to key prefixes"));
        assertTrue(check(access(Role.ADMIN, "app:"), MessageType.KEY_SCAN_REQUEST, "")
            .contains("limited to key prefixes"));
    }

    @Test
    void shouldAskReadwriteForARecordWriteAndReadForItsTtl()
    {
        assertTrue(record(access(Role.READ), RecordWriteRequestFlyweight.OP_INCREMENT, "k")
            .contains("needs the role readwrite"));
        assertNull(record(access(Role.READ), RecordWriteRequestFlyweight.OP_TTL, "k"));
        assertNull(record(access(Role.READWRITE, "app:"), RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, "app:1"));
        assertTrue(record(access(Role.READWRITE, "app:"), RecordWriteRequestFlyweight.OP_EXPIRE, "other")
            .contains("outside"));
    }

    @Test
    void shouldAskAdminForAPutThatKeepsItsDataVersion()
    {
        assertTrue(record(access(Role.READWRITE), RecordWriteRequestFlyweight.OP_PUT, 42, "k")
            .contains("needs the role admin"), "a restore's PUT could set a key back to an old version");
        assertNull(record(access(Role.ADMIN), RecordWriteRequestFlyweight.OP_PUT, 42, "k"));
        assertNull(record(access(Role.READWRITE), RecordWriteRequestFlyweight.OP_PUT, 0, "k"), "a PUT with a TTL");
    }

    private String record(final Access access, final int op, final String key)
    {
        return record(access, op, 0, key);
    }

    private String record(final Access access, final int op, final long expected, final String key)
    {
        final RecordWriteRequestFlyweight r = new RecordWriteRequestFlyweight().wrap(message, 0, message.capacity());
        r.header(MessageType.RECORD_WRITE_REQUEST, 1);
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        r.write(op, expected, op == RecordWriteRequestFlyweight.OP_EXPIRE ? 1000 : 0, k, new byte[0]);
        assertEquals(MessageType.RECORD_WRITE_REQUEST, decoder.decode(message, 0, r.encodedLength()));
        return AccessCheck.refusal(access, MessageType.RECORD_WRITE_REQUEST, decoder);
    }
}

package io.rdmakv.server.handler;

import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.layout.KeyHasher;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A request's key is hashed once, at decode, and every step after it (routing, the write path, the store key's slot
 * prefix, the pool index's buckets and fingerprint, a promotion from RocksDB) reads the hashes made there.
 *
 * <p>The handler hashes through a counting {@link KeyHasher} whose hashes are deliberately not {@link KeyHash}'s (the
 * index hash inverted, the hash slot moved by one). So a step that hashed the key again on its own would disagree
 * with the decode's: a GET would miss the pool entry its PUT published (another bucket and fingerprint), and RocksDB
 * would hold the value under another slot prefix than the decode's (looked up here directly). Each GET below says where it must be served from, and the counts say
 * how often the key was hashed: once per request.
 */
class KeyHashedOnceTest
{
    @TempDir
    Path dir;

    /** Counts computations; hashes unlike {@link KeyHasher#STANDARD}, so a step that re-hashed would not agree. */
    private static final class CountingHasher implements KeyHasher
    {
        int hashes;
        int hashSlots;

        @Override
        public long hash(final DirectBuffer key, final int offset, final int length)
        {
            hashes++;
            return ~KeyHash.hash(key, offset, length);
        }

        @Override
        public int hashSlot(final DirectBuffer key, final int offset, final int length)
        {
            hashSlots++;
            return (KeyHash.hashSlot(key, offset, length) + 1) & (ProtocolLimits.HASH_SLOT_COUNT - 1);
        }
    }

    /** Keeps each answer's status and value. */
    private static final class Answers extends AnsweringEndpoint
    {
        final List<String> answers = new ArrayList<>();

        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            final byte[] value = new byte[response.valueLength()];
            response.buffer().getBytes(response.valueIndex(), value);
            final String text = new String(value, StandardCharsets.UTF_8);
            answers.add(response.status().name() + (value.length == 0 ? "" : " " + text)); // a GET's value
        }

        String last()
        {
            return answers.get(answers.size() - 1);
        }

        String lastStatus()
        {
            return last().split(" ", 2)[0];
        }
    }

    private final UnsafeBuffer message = new UnsafeBuffer(new byte[4096]);

    @Test
    void shouldHashEachRequestsKeyOnceAndUseThoseHashesAllTheWayDown()
    {
        final CountingHasher hasher = new CountingHasher();
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir, hasher))
        {
            final RequestHandler handler = node.handler;
            final Answers client = new Answers();
            handler.onConnected(client);
            final AttachRequestFlyweight attach = new AttachRequestFlyweight().wrap(message, 0, message.capacity());
            attach.header(MessageType.ATTACH_REQUEST, 0).ticket(node.tickets.issue());
            handler.onMessage(client, message, 0, AttachRequestFlyweight.ENCODED_LENGTH);
            assertEquals("OK", client.lastStatus(), "attached"); // the answer carries the session's terms
            assertEquals(0, hasher.hashes + hasher.hashSlots, "no key yet");

            put(handler, client, 1, "alpha", "one");
            handler.doWork(); // the batch: RocksDB under the slot prefix, then the pool, then the answer
            assertEquals("OK", client.lastStatus());
            assertHashedTimes(hasher, 1);
            assertTrue(node.store.contains(storeKey("alpha")), "RocksDB has it under the hash slot made at decode");

            get(handler, client, 2, "alpha");
            assertEquals("OK one", client.last());
            assertEquals(1, node.counters.get(ServerCounter.GETS_RPC_FROM_POOL), "found where its PUT published it");
            assertHashedTimes(hasher, 2);

            // Out of the pool (through the test's own reference, the same hashes counted apart): the next GET reads
            // RocksDB.
            final CountingHasher own = new CountingHasher();
            node.index.remove(new HashedKey(own).wrap(ascii("alpha"), 0, 5));
            get(handler, client, 3, "alpha");
            assertEquals("OK one", client.last());
            assertEquals(1, node.counters.get(ServerCounter.GETS_RPC_FROM_STORE), "RocksDB has it under its slot");
            assertEquals(1, node.counters.get(ServerCounter.PROMOTIONS), "promoted into the pool");
            assertHashedTimes(hasher, 3);

            get(handler, client, 4, "alpha");
            assertEquals("OK one", client.last());
            assertEquals(2, node.counters.get(ServerCounter.GETS_RPC_FROM_POOL), "the promotion is where it belongs");
            assertHashedTimes(hasher, 4);

            delete(handler, client, 5, "alpha");
            assertEquals("OK", client.lastStatus(), "it existed: the pool or RocksDB found it under its hashes");
            assertHashedTimes(hasher, 5);

            get(handler, client, 6, "alpha");
            assertEquals("NOT_FOUND", client.last(), "gone from both");
            assertHashedTimes(hasher, 6);

            put(handler, client, 7, "beta", "two");
            get(handler, client, 8, "beta"); // the PUT is still batched: the GET of its key flushes it first
            assertEquals("OK", client.answers.get(client.answers.size() - 2).split(" ", 2)[0], "the PUT, first");
            assertEquals("OK two", client.last());
            assertHashedTimes(hasher, 8);
        }
    }

    /** The RocksDB key of {@code key} under the counting hasher's hash slot (computed here, not counted). */
    private static ByteBuffer storeKey(final String key)
    {
        final UnsafeBuffer bytes = ascii(key);
        final int hashSlot = (KeyHash.hashSlot(bytes, 0, key.length()) + 1) & (ProtocolLimits.HASH_SLOT_COUNT - 1);
        final ByteBuffer storeKey = ByteBuffer.allocateDirect(2 + key.length());
        storeKey.put((byte)(hashSlot >>> 8)).put((byte)hashSlot).put(key.getBytes(StandardCharsets.US_ASCII)).flip();
        return storeKey;
    }

    private static void assertHashedTimes(final CountingHasher hasher, final int requests)
    {
        assertEquals(requests, hasher.hashes, "index hashes after " + requests + " requests");
        assertEquals(requests, hasher.hashSlots, "hash slots after " + requests + " requests");
    }

    private void put(final RequestHandler handler, final Answers client, final long id, final String key,
        final String value)
    {
        final PutRequestFlyweight put = new PutRequestFlyweight().wrap(message, 0, message.capacity());
        put.header(MessageType.PUT_REQUEST, id);
        put.keyAndValue(ascii(key), 0, key.length(), ascii(value), 0, value.length());
        handler.onMessage(client, message, 0, put.encodedLength());
    }

    private void get(final RequestHandler handler, final Answers client, final long id, final String key)
    {
        keyRequest(handler, client, MessageType.GET_REQUEST, id, key);
    }

    private void delete(final RequestHandler handler, final Answers client, final long id, final String key)
    {
        keyRequest(handler, client, MessageType.DELETE_REQUEST, id, key);
    }

    private void keyRequest(final RequestHandler handler, final Answers client, final MessageType type,
        final long id, final String key)
    {
        final KeyRequestFlyweight request = new KeyRequestFlyweight().wrap(message, 0, message.capacity());
        request.header(type, id).key(ascii(key), 0, key.length());
        handler.onMessage(client, message, 0, request.encodedLength());
    }

    private static UnsafeBuffer ascii(final String s)
    {
        return new UnsafeBuffer(s.getBytes(StandardCharsets.US_ASCII));
    }
}

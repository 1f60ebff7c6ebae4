package io.rdmakv.server.handler;

import io.rdmakv.protocol.layout.HashedKey;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.store.StoreKeys;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An RPC GET of a key the pool lacks reads RocksDB only when the pool is not COMPLETE: a COMPLETE pool holds every key
 * the node serves (what a one-sided reader trusts already), so its miss is answered NOT_FOUND at once.
 *
 * <p>The proof that a COMPLETE pool's miss reads nothing: RocksDB is made to hold a key the pool does not (taken out
 * of the pool behind the handler's back). An incomplete pool's GET then finds it in RocksDB (the store is read); a
 * complete pool's GET answers NOT_FOUND, which it could not have done had it read the store, and the counters say which
 * way each GET went. Driven on one thread, straight into the handler.
 */
class CompletePoolMissTest
{
    @TempDir
    Path dir;

    private final UnsafeBuffer message = new UnsafeBuffer(new byte[4096]);

    /** Keeps each answer's status and value. */
    private static final class Answers extends AnsweringEndpoint
    {
        final List<String> answers = new ArrayList<>();

        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            final byte[] value = new byte[response.valueLength()];
            response.buffer().getBytes(response.valueIndex(), value);
            answers.add(response.status().name() + (value.length == 0 ? "" : " " + new String(value,
                StandardCharsets.UTF_8)));
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

    @Test
    void shouldAnswerAMissFromACompletePoolWithoutReadingRocksDbAndReadItWhenThePoolIsIncomplete()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final RequestHandler handler = node.handler;
            final Answers client = attach(node);
            put(handler, client, 1, "alpha", "one");
            handler.doWork();
            assertEquals("OK", client.lastStatus(), "written"); // a PUT's answer carries where it was placed

            // Incomplete (the handler's pool starts so): a miss reads RocksDB, finds the key and promotes it.
            assertFalse(node.index.isComplete());
            node.index.remove(hashed("alpha"));
            get(handler, client, 2, "alpha");
            assertEquals("OK one", client.last(), "RocksDB was read");
            assertEquals(1, node.counters.get(ServerCounter.GETS_RPC_FROM_STORE));
            assertEquals(0, node.counters.get(ServerCounter.GETS_RPC_COMPLETE_MISSES));
            get(handler, client, 3, "absent");
            assertEquals("NOT_FOUND", client.last());
            assertEquals(1, node.counters.get(ServerCounter.GETS_RPC_NOT_FOUND), "RocksDB read, found nothing");
            assertEquals(0, node.counters.get(ServerCounter.GETS_RPC_COMPLETE_MISSES));

            // Complete: RocksDB still holds alpha, which the pool lacks; a GET that read the store would find it.
            node.index.markComplete();
            node.index.remove(hashed("alpha"));
            assertTrue(node.store.contains(storeKey("alpha")));
            get(handler, client, 4, "alpha");
            assertEquals("NOT_FOUND", client.last(), "answered from the pool alone: RocksDB was not read");
            get(handler, client, 5, "absent");
            assertEquals("NOT_FOUND", client.last());
            assertEquals(2, node.counters.get(ServerCounter.GETS_RPC_COMPLETE_MISSES));
            assertEquals(3, node.counters.get(ServerCounter.GETS_RPC_NOT_FOUND));
            assertEquals(1, node.counters.get(ServerCounter.GETS_RPC_FROM_STORE), "no store read since");
            assertEquals(1, node.counters.get(ServerCounter.PROMOTIONS), "nothing promoted since");

            // A hit is still the pool's, complete or not.
            put(handler, client, 6, "beta", "two");
            get(handler, client, 7, "beta"); // its PUT is batched on this connection: written (and placed) first
            assertEquals("OK two", client.last());
            assertEquals(1, node.counters.get(ServerCounter.GETS_RPC_FROM_POOL));

            // A key whose PUT is batched on another connection: the GET writes the batch first and sees it.
            final Answers other = attach(node);
            put(handler, client, 8, "gamma", "three");
            get(handler, other, 9, "gamma");
            assertEquals("OK three", other.last(), "the batched PUT was written and placed before the GET");
            assertEquals(2, node.counters.get(ServerCounter.GETS_RPC_COMPLETE_MISSES));

            // COMPLETE cleared again (as an eviction or a write with no room does): misses read RocksDB again.
            node.index.markIncomplete();
            get(handler, client, 10, "alpha");
            assertEquals("OK one", client.last(), "RocksDB was read again");
            assertEquals(2, node.counters.get(ServerCounter.GETS_RPC_FROM_STORE));
            assertEquals(2, node.counters.get(ServerCounter.GETS_RPC_COMPLETE_MISSES));
        }
    }

    private Answers attach(final HandlerOnOneThread node)
    {
        final Answers client = new Answers();
        node.handler.onConnected(client);
        final AttachRequestFlyweight attach = new AttachRequestFlyweight().wrap(message, 0, message.capacity());
        attach.header(MessageType.ATTACH_REQUEST, 0).ticket(node.tickets.issue());
        node.handler.onMessage(client, message, 0, AttachRequestFlyweight.ENCODED_LENGTH);
        assertTrue(client.last().startsWith("OK"), "attached");
        return client;
    }

    private static HashedKey hashed(final String key)
    {
        return new HashedKey().wrap(ascii(key), 0, key.length());
    }

    /** The RocksDB key of {@code key}: its hash slot's prefix, then the key. */
    private static ByteBuffer storeKey(final String key)
    {
        final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final int length = StoreKeys.encode(hashed(key), buffer, 0);
        return buffer.byteBuffer().limit(length).position(0);
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
        final KeyRequestFlyweight request = new KeyRequestFlyweight().wrap(message, 0, message.capacity());
        request.header(MessageType.GET_REQUEST, id).key(ascii(key), 0, key.length());
        handler.onMessage(client, message, 0, request.encodedLength());
    }

    private static UnsafeBuffer ascii(final String s)
    {
        return new UnsafeBuffer(s.getBytes(StandardCharsets.US_ASCII));
    }
}

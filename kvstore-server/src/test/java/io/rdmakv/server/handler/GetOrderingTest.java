package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.server.session.SessionTickets;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A GET does not write the PUTs batched before it unless it must (DEFAULT durability, one node): PUTs of several
 * connections in one read cycle stay one RocksDB batch while GETs of other keys on other connections are answered
 * between them; a GET of a key with a batched PUT, and a GET on the connection that sent a batched PUT, write the batch
 * first (it sees the PUT, and a connection's answers stay in the order of its requests). Driven on one thread, straight
 * into the handler: the order of answers is the order of events.
 */
class GetOrderingTest
{
    private static final long WRITER = 0x5eed_0001L;

    @TempDir
    Path dir;

    private final List<String> answers = new ArrayList<>();

    private final class Recording extends AnsweringEndpoint
    {
        final String name;

        Recording(final String name)
        {
            this.name = name;
        }

        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            answers.add(name + ":" + response.correlationId() + ":" + response.status());
        }
    }

    @Test
    void shouldWriteTheBatchBeforeAGetOnlyWhenTheGetMustSeeItOrFollowItOnItsConnection()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final SessionTickets tickets = node.tickets;
            final RequestHandler handler = node.handler;
            final Recording a = attach(handler, tickets, "a");
            final Recording b = attach(handler, tickets, "b");
            answers.clear();
            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));

            put(handler, a, message, 1, "k1", 1);
            put(handler, b, message, 2, "k2", 2);
            get(handler, b, message, 3, "other");   // b's own PUT is batched: flushes, answers in b's order
            assertEquals(List.of("a:1:OK", "b:2:OK", "b:3:NOT_FOUND"), answers);
            answers.clear();

            put(handler, a, message, 4, "k4", 3);
            get(handler, b, message, 5, "k2");      // another key, another connection: answered at once
            assertEquals(List.of("b:5:OK"), answers, "the PUT of k4 is still batched");
            get(handler, b, message, 6, "k4");      // the batched PUT's key: the batch is written first
            assertEquals(List.of("b:5:OK", "a:4:OK", "b:6:OK"), answers);
            answers.clear();

            put(handler, a, message, 7, "k7", 4);
            get(handler, a, message, 8, "k2");      // same connection as the batched PUT: written first
            assertEquals(List.of("a:7:OK", "a:8:OK"), answers);
        }
    }

    private Recording attach(final RequestHandler handler, final SessionTickets tickets, final String name)
    {
        final Recording endpoint = new Recording(name);
        handler.onConnected(endpoint);
        final UnsafeBuffer attach = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
        new AttachRequestFlyweight().wrap(attach, 0, attach.capacity()).header(MessageType.ATTACH_REQUEST, 0)
            .ticket(tickets.issue());
        handler.onMessage(endpoint, attach, 0, attach.capacity());
        assertEquals(name + ":0:OK", answers.get(answers.size() - 1), "attached");
        return endpoint;
    }

    private static void put(final RequestHandler handler, final Recording endpoint, final UnsafeBuffer message,
        final long id, final String key, final long write)
    {
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        final byte[] v = ("value of " + key).getBytes(StandardCharsets.UTF_8);
        final PutRequestFlyweight put = new PutRequestFlyweight();
        put.wrap(message, 0, message.capacity()).header(MessageType.PUT_REQUEST, id);
        put.keyAndValue(new UnsafeBuffer(k), 0, k.length, new UnsafeBuffer(v), 0, v.length);
        put.appendWriteId(WRITER + endpoint.name.charAt(0), write, write);
        handler.onMessage(endpoint, message, 0, put.encodedLength());
    }

    private static void get(final RequestHandler handler, final Recording endpoint, final UnsafeBuffer message,
        final long id, final String key)
    {
        final byte[] k = key.getBytes(StandardCharsets.UTF_8);
        final KeyRequestFlyweight request = new KeyRequestFlyweight();
        request.wrap(message, 0, message.capacity()).header(MessageType.GET_REQUEST, id);
        request.key(new UnsafeBuffer(k), 0, k.length);
        handler.onMessage(endpoint, message, 0, request.encodedLength());
    }
}

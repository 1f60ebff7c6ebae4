package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.KeyRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.store.Durability;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The request path of DEFAULT durability allocates nothing per request on the Java heap: decode, limits, routing,
 * RocksDB write and read through direct scratch buffers, pool update, response encoding. Measured with the JVM's
 * per-thread allocation counter around many PUT/GET/DELETE requests handed straight to the handler (the transport is
 * left out: its own allocation is the transport's business, covered by its own suite).
 */
class RequestHandlerAllocationTest
{
    @TempDir
    Path dir;

    /** Collects answers: decodes each response's status into counts; allocates nothing per answer. */
    private static final long WRITER = 0x1234_5678_9ABCL;

    private static final class AnswerCounter extends AnsweringEndpoint
    {
        final long[] byStatus = new long[32];

        @Override
        protected void onResponse(final ResponseFlyweight response)
        {
            byStatus[response.statusCode()]++;
        }
    }

    @Test
    void shouldNotAllocatePerRequestOnTheDefaultDurabilityPath()
    {
        try (HandlerOnOneThread node = new HandlerOnOneThread(dir))
        {
            final SessionTickets tickets = node.tickets;
            final RequestHandler handler = node.handler;
            final AnswerCounter endpoint = new AnswerCounter();
            handler.onConnected(endpoint);
            final UnsafeBuffer attach = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
            new AttachRequestFlyweight().wrap(attach, 0, attach.capacity()).header(MessageType.ATTACH_REQUEST, 0)
                .ticket(tickets.issue());
            handler.onMessage(endpoint, attach, 0, attach.capacity());
            assertEquals(1, endpoint.byStatus[Status.OK.code()], "attached");

            final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(8192));
            final PutRequestFlyweight put = new PutRequestFlyweight();
            final KeyRequestFlyweight key = new KeyRequestFlyweight();
            final UnsafeBuffer keyBytes = new UnsafeBuffer(new byte[16]);
            final UnsafeBuffer valueBytes = new UnsafeBuffer(new byte[300]);

            final int rounds = 5_000;
            runRound(handler, endpoint, message, put, key, keyBytes, valueBytes, rounds, 0); // warm up (JIT, RocksDB)
            final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();
            final long before = threads.getCurrentThreadAllocatedBytes();
            runRound(handler, endpoint, message, put, key, keyBytes, valueBytes, rounds, 4L * rounds);
            final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

            assertEquals(0, endpoint.byStatus[Status.MALFORMED.code()]);
            assertTrue(endpoint.byStatus[Status.OK.code()] >= 4L * rounds, "answers OK: " + endpoint.byStatus[0]);
            assertTrue(endpoint.byStatus[Status.NOT_FOUND.code()] >= 2L * rounds,
                "misses and deletes of absent keys answered NOT_FOUND");
            // 6 requests per round: one small object per request would be >= 400 KB. Measured: a few KB at most
            // (incidental: lazy growth, JIT-time allocations on this thread).
            assertTrue(allocated < 64 * 1024, "allocated " + allocated + " bytes for " + (6 * rounds) + " requests");
        }
    }

    private static void runRound(
        final RequestHandler handler, final AnswerCounter endpoint, final UnsafeBuffer message,
        final PutRequestFlyweight put, final KeyRequestFlyweight key, final UnsafeBuffer keyBytes,
        final UnsafeBuffer valueBytes, final int rounds, final long writesBefore)
    {
        // Writes carry a write id as the client sends them (at-most-once retries: WriteIds), each numbered after the
        // last and marking every earlier one answered, so the node's records of them come and go.
        long write = writesBefore;
        for (int i = 0; i < rounds; i++)
        {
            final int k = i % 1000;
            keyBytes.putLong(0, k);
            keyBytes.putLong(8, 0x6b65792d6b65792dL);
            valueBytes.putInt(0, i);

            put.wrap(message, 0, message.capacity()).header(MessageType.PUT_REQUEST, i);
            put.keyAndValue(keyBytes, 0, 16, valueBytes, 0, 100 + (k % 200));
            put.appendWriteId(WRITER, ++write, write);
            handler.onMessage(endpoint, message, 0, put.encodedLength());

            keyRequest(handler, endpoint, message, key, MessageType.GET_REQUEST, keyBytes, i);   // from the pool
            keyRequest(handler, endpoint, message, key, MessageType.DELETE_REQUEST, keyBytes, i, ++write);
            keyRequest(handler, endpoint, message, key, MessageType.DELETE_REQUEST, keyBytes, i, ++write); // absent
            keyRequest(handler, endpoint, message, key, MessageType.GET_REQUEST, keyBytes, i);   // pool + RocksDB miss
            put.wrap(message, 0, message.capacity()).header(MessageType.PUT_REQUEST, i);
            put.keyAndValue(keyBytes, 0, 16, valueBytes, 0, 64);
            put.appendWriteId(WRITER, ++write, write);
            handler.onMessage(endpoint, message, 0, put.encodedLength());
        }
    }

    private static void keyRequest(
        final RequestHandler handler, final AnswerCounter endpoint, final UnsafeBuffer message,
        final KeyRequestFlyweight key, final MessageType type, final UnsafeBuffer keyBytes, final long id)
    {
        keyRequest(handler, endpoint, message, key, type, keyBytes, id, 0);
    }

    /** @param write the DELETE's write number, 0 for none. */
    private static void keyRequest(
        final RequestHandler handler, final AnswerCounter endpoint, final UnsafeBuffer message,
        final KeyRequestFlyweight key, final MessageType type, final UnsafeBuffer keyBytes, final long id,
        final long write)
    {
        key.wrap(message, 0, message.capacity()).header(type, id);
        key.key(keyBytes, 0, 16);
        if (write != 0)
        {
            key.appendWriteId(WRITER, write, write);
        }
        handler.onMessage(endpoint, message, 0, key.encodedLength());
    }
}

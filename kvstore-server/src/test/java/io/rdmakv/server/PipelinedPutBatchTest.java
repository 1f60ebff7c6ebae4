package io.rdmakv.server;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * PUTs pipelined on one connection are written to RocksDB in batches (one WAL write per progress step): each is still
 * answered in order, after it is durable, and a request that is not a PUT sees every PUT sent before it.
 */
class PipelinedPutBatchTest
{
    private static final int PUTS = 700; // more than one batch (PutBatch.MAX_PUTS) in one step

    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void shouldAnswerPipelinedPutsInOrderAndLetALaterGetAndDeleteSeeThem() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(server))
        {
            final long[] ids = new long[PUTS];
            for (int i = 0; i < PUTS; i++)
            {
                ids[i] = client.sendPut(b("k" + (i % 500)), b("v" + i));
            }
            final long get = client.sendKeyRequest(MessageType.GET_REQUEST, b("k7"));
            final long delete = client.sendKeyRequest(MessageType.DELETE_REQUEST, b("k8"));
            final long getDeleted = client.sendKeyRequest(MessageType.GET_REQUEST, b("k8"));
            final long putAfter = client.sendPut(b("k8"), b("again"));
            for (int i = 0; i < PUTS; i++)
            {
                final RawClient.Reply reply = client.await(ids[i]); // await() insists on arrival order
                assertEquals(Status.OK, reply.status(), "PUT " + i);
                assertTrue(reply.version() > 0, "PUT " + i + " was placed in the pool");
            }
            assertArrayEquals(b("v507"), client.await(get).value(), "the GET sees the last PUT sent before it");
            assertEquals(Status.OK, client.await(delete).status(), "the DELETE finds the batched PUT");
            assertEquals(Status.NOT_FOUND, client.await(getDeleted).status());
            assertEquals(Status.OK, client.await(putAfter).status());
            assertArrayEquals(b("again"), client.get(b("k8")).value());
        }
        // Answered means durable: every key is in RocksDB after a restart.
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(server))
        {
            assertArrayEquals(b("v699"), client.get(b("k199")).value());
            assertArrayEquals(b("v200"), client.get(b("k200")).value());
            assertArrayEquals(b("again"), client.get(b("k8")).value());
        }
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

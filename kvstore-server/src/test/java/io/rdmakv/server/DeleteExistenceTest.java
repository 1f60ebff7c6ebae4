package io.rdmakv.server;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.transport.RemoteKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * DELETE answers NOT_FOUND for a key that does not exist, whether the key's existence is decided by the pool, by
 * RocksDB (key not cached in the pool), or by the group committer (FSYNC, where the pool lags writes in flight).
 */
class DeleteExistenceTest
{
    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldAnswerNotFoundForADeleteOfAnAbsentKeyAndOkForAPresentOne() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(server))
        {
            assertEquals(Status.NOT_FOUND, client.delete(b("never-written")).status());
            assertEquals(Status.OK, client.put(b("k"), b("v")).status());
            assertEquals(Status.OK, client.delete(b("k")).status());
            assertEquals(Status.NOT_FOUND, client.delete(b("k")).status());
            assertEquals(Status.NOT_FOUND, client.get(b("k")).status());
            assertEquals(3, server.counters().get(ServerCounter.DELETES));
            assertEquals(2, server.counters().get(ServerCounter.DELETES_NOT_FOUND));
        }
    }

    @Test
    @Timeout(60)
    void shouldFindAKeyInRocksDbThatThePoolDoesNotHold() throws Exception
    {
        // A 1 MiB pool cannot hold 400 x 4 KB: some keys live in RocksDB only, and their DELETE must still say OK.
        final Map<String, String> small = Map.of("pool.size", "1MiB", "limits.maxValueBytes", "4096",
            "pool.reclaimGraceMs", "0");
        String uncached = null;
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, small));
             RawClient client = RawClient.attached(server))
        {
            final byte[] value = new byte[4000];
            for (int i = 0; i < 400; i++)
            {
                assertEquals(Status.OK, client.put(b("k" + i), value).status());
            }
            final Welcome welcome = server.welcome();
            final RemoteKey rkey = RemoteKey.unpack(welcome.remoteKey());
            for (int i = 0; i < 400 && uncached == null; i++)
            {
                if (client.oneSidedGet(rkey, welcome.poolHeaderAddress(), b("k" + i)) == null)
                {
                    uncached = "k" + i;
                }
            }
            assertNotNull(uncached, "a 1 MiB pool cannot hold 400 x 4 KB");
            assertEquals(Status.OK, client.delete(b(uncached)).status());
            assertEquals(Status.NOT_FOUND, client.delete(b(uncached)).status());
        }
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, small));
             RawClient client = RawClient.attached(server))
        {
            // The deletion reached RocksDB, not only the answer.
            assertEquals(Status.NOT_FOUND, client.get(b(uncached)).status());
        }
    }

    @Test
    @Timeout(60)
    void shouldDecideExistenceInSubmissionOrderUnderGroupCommit() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of("durability", "FSYNC")));
             RawClient client = RawClient.attached(server))
        {
            // Pipelined: the PUT is usually still waiting for its sync when the DELETEs arrive, so neither the pool nor
            // RocksDB alone knows the answer; the order of submission does.
            for (int round = 0; round < 20; round++)
            {
                final byte[] key = b("f" + round);
                final long put = client.sendPut(key, b("v"));
                final long first = client.sendKeyRequest(MessageType.DELETE_REQUEST, key);
                final long second = client.sendKeyRequest(MessageType.DELETE_REQUEST, key);
                final long absent = client.sendKeyRequest(MessageType.DELETE_REQUEST, b("absent" + round));
                assertEquals(Status.OK, client.await(put).status());
                assertEquals(Status.OK, client.await(first).status(), "round " + round);
                assertEquals(Status.NOT_FOUND, client.await(second).status(), "round " + round);
                assertEquals(Status.NOT_FOUND, client.await(absent).status(), "round " + round);
                assertEquals(Status.NOT_FOUND, client.get(key).status());
            }
            assertEquals(40, server.counters().get(ServerCounter.DELETES_NOT_FOUND));
        }
    }
}

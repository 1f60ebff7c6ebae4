package io.rdmakv.server;

import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.layout.ExtentStatus;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.MessageHeaderFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.transport.RemoteKey;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KvServerTest
{
    @TempDir
    Path dir;

    static ServerConfig testConfig(final Path dataDir, final Map<String, String> extra)
    {
        final Map<String, String> m = new HashMap<>(Map.of(
            "data.dir", dataDir.toString(),
            "transport", "tcp",
            "host", "127.0.0.1",
            "control.port", "0",
            "data.port", "0",
            "pool.size", "8MiB",
            "pool.pin", "OFF",
            "limits.maxValueBytes", "65536"));
        m.putAll(extra);
        return ServerConfig.from(new Properties(), m);
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldAnswerPutGetDeleteOverTcpAndServeOneSidedReads() throws Exception
    {
        try (KvServer server = KvServer.start(testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(server))
        {
            assertEquals("tcp", server.transportName());
            final long registrations = server.registrationCount();
            assertEquals(server.registrationsAfterStart(), registrations);
            assertEquals(server.registrationsWhenReady(), registrations, "the count checked at stop");

            final RawClient.Reply put = client.put(b("alpha"), b("one"));
            assertEquals(Status.OK, put.status());
            assertTrue(put.version() != 0, "a cached PUT reports the extent version");
            assertArrayEquals(b("one"), client.get(b("alpha")).value());
            assertEquals(Status.OK, client.get(b("alpha")).status());

            // One-sided: the value is in the registered pool, found through the layout alone.
            final Welcome welcome = server.welcome();
            final RemoteKey rkey = RemoteKey.unpack(welcome.remoteKey());
            assertArrayEquals(b("one"), client.oneSidedGet(rkey, welcome.poolHeaderAddress(), b("alpha")));
            assertTrue(client.poolComplete(rkey, welcome.poolHeaderAddress()), "empty store at start: pool complete");

            // The PUT's answer said where the value lives: one read of that extent alone verifies it as current...
            final long location = locationOf(put);
            assertEquals(ExtentStatus.OK,
                client.readRemembered(rkey, welcome.poolHeaderAddress(), location, b("alpha"), put.version()));

            final RawClient.Reply overwrite = client.put(b("alpha"), b("two"));
            assertEquals(Status.OK, overwrite.status());
            assertArrayEquals(b("two"), client.oneSidedGet(rkey, welcome.poolHeaderAddress(), b("alpha")));
            // ...until it is superseded: then the old extent says RETIRED, before the overwrite was even answered.
            assertEquals(ExtentStatus.RETIRED,
                client.readRemembered(rkey, welcome.poolHeaderAddress(), location, b("alpha"), put.version()));
            assertEquals(ExtentStatus.OK, client.readRemembered(rkey, welcome.poolHeaderAddress(),
                locationOf(overwrite), b("alpha"), overwrite.version()));

            assertEquals(Status.OK, client.delete(b("alpha")).status());
            assertEquals(Status.NOT_FOUND, client.get(b("alpha")).status());
            assertNull(client.oneSidedGet(rkey, welcome.poolHeaderAddress(), b("alpha")));

            final byte[] big = new byte[65536];
            big[65535] = 7;
            assertEquals(Status.OK, client.put(b("big"), big).status());
            assertArrayEquals(big, client.get(b("big")).value());

            assertEquals(2, server.counters().get(ServerCounter.PUTS) - 1);
            assertEquals(registrations, server.registrationCount(), "no registration on the data path");
            final String stats = client.stats().text();
            assertTrue(stats.contains("puts=3"), stats);
            assertTrue(stats.contains("registrations=" + registrations), stats);
            assertTrue(stats.contains("connections.data=1"), stats);
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerEveryMalformedRequestAndKeepServing() throws Exception
    {
        try (KvServer server = KvServer.start(testConfig(dir, Map.of("limits.maxKeyBytes", "16")));
             RawClient client = RawClient.attached(server))
        {
            // Shorter than a header: no correlation id to echo, still an answer.
            assertEquals(Status.MALFORMED, client.raw(new byte[5]).status());

            final UnsafeBuffer m = new UnsafeBuffer(new byte[64]);
            final MessageHeaderFlyweight h = new MessageHeaderFlyweight().wrap(m, 0, 64);
            h.header(MessageType.GET_REQUEST, 99).bodyLength(0);
            h.protocolVersion(9);
            RawClient.Reply r = client.raw(copy(m, 16));
            assertEquals(Status.UNSUPPORTED_VERSION, r.status());
            assertEquals(99, r.correlationId(), "the correlation id is echoed when a header arrived");

            h.header(MessageType.GET_REQUEST, 100);
            m.putByte(MessageHeaderFlyweight.TYPE_OFFSET, (byte)77);
            assertEquals(Status.UNKNOWN_TYPE, client.raw(copy(m, 16)).status());

            h.header(MessageType.GET_REQUEST, 101).bodyLength(40); // claims more than arrives
            assertEquals(Status.MALFORMED, client.raw(copy(m, 20)).status());

            h.header(MessageType.PUT_REQUEST, 102).bodyLength(8);
            m.putShort(16, (short)1000, ByteOrder.LITTLE_ENDIAN); // key length beyond the body
            assertEquals(Status.MALFORMED, client.raw(copy(m, 24)).status());

            h.header(MessageType.STATS_REQUEST, 103);
            m.putInt(MessageHeaderFlyweight.BODY_LENGTH_OFFSET, 0xFFFF_FFF0, ByteOrder.LITTLE_ENDIAN); // huge length
            assertEquals(Status.MALFORMED, client.raw(copy(m, 16)).status());

            h.header(MessageType.RESPONSE, 104).bodyLength(16);
            assertEquals(Status.MALFORMED, client.raw(copy(m, 32)).status());

            assertEquals(Status.KEY_TOO_LARGE, client.put(new byte[17], b("v")).status());
            assertEquals(Status.KEY_TOO_LARGE, client.get(new byte[17]).status());
            assertEquals(Status.VALUE_TOO_LARGE, client.put(b("k"), new byte[65537]).status());
            assertEquals(Status.MALFORMED, client.put(new byte[0], b("v")).status());

            assertTrue(server.counters().get(ServerCounter.MALFORMED_REQUESTS) >= 7);
            assertTrue(server.counters().get(ServerCounter.LIMIT_REJECTIONS) >= 3);

            assertEquals(Status.OK, client.put(b("still"), b("serving")).status());
            assertArrayEquals(b("serving"), client.get(b("still")).value());
        }
    }

    @Test
    @Timeout(60)
    void shouldDropAConnectionThatSendsAnOversizedMessageAndLimitConnections() throws Exception
    {
        try (KvServer server = KvServer.start(testConfig(dir, Map.of("limits.maxConnections", "2"))))
        {
            try (RawClient greedy = RawClient.attached(server))
            {
                // Bigger than the server's transport accepts: the frame is refused and the connection closed.
                // (Larger than the TCP transport's frame limit: data messages and emulated-read answers share it.)
                assertTrue(greedy.endpoint().send(new UnsafeBuffer(new byte[2 << 20]), 0, 2 << 20, null) >= 0);
                final long deadline = System.nanoTime() + 10_000_000_000L;
                while (greedy.endpoint().isConnected() && System.nanoTime() < deadline)
                {
                    Thread.sleep(10);
                }
                assertFalse(greedy.endpoint().isConnected(), "oversized frame closes the connection");
            }
            try (RawClient a = RawClient.attached(server); RawClient b2 = RawClient.attached(server))
            {
                assertEquals(Status.OK, a.put(b("k"), b("v")).status());
                assertEquals(Status.OK, b2.get(b("k")).status());
                // A third connection may wait unauthenticated (its own budget), but its ATTACH beyond the limit of
                // attached connections gets BUSY and a close.
                final Welcome welcome = (Welcome)ControlHandshake.hello(server.controlAddress(), "");
                try (RawClient third = new RawClient(server.dataAddress()))
                {
                    assertEquals(Status.BUSY, third.attach(welcome.sessionTicket()).status());
                    final long deadline = System.nanoTime() + 10_000_000_000L;
                    while (third.endpoint().isConnected() && System.nanoTime() < deadline)
                    {
                        Thread.sleep(10);
                    }
                    assertFalse(third.endpoint().isConnected(), "a connection beyond the limit is closed");
                }
                assertEquals(1, server.counters().get(ServerCounter.CONNECTIONS_REFUSED));
                assertEquals(Status.OK, a.get(b("k")).status(), "accepted connections keep working");
            }
        }
    }

    private static byte[] copy(final UnsafeBuffer buffer, final int length)
    {
        final byte[] bytes = new byte[length];
        buffer.getBytes(0, bytes);
        return bytes;
    }

    @Test
    @Timeout(60)
    void shouldKeepDataAcrossRestartWarmUpThePoolAndBumpTheEpoch() throws Exception
    {
        final long firstEpoch;
        final long expiry = System.currentTimeMillis() + 3_600_000L;
        final byte[] before;
        try (KvServer server = KvServer.start(testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(server))
        {
            firstEpoch = server.epoch();
            for (int i = 0; i < 200; i++)
            {
                assertEquals(Status.OK, client.put(b("key-" + i), b("value-" + i)).status());
            }
            client.delete(b("key-7"));
            assertEquals(Status.OK, client.recordWrite(RecordWriteRequestFlyweight.OP_PUT, 0, expiry, b("key-7"),
                b("expiring")).status());
            before = server.store().getRecord(b("key-7"));
        }
        try (KvServer server = KvServer.start(testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(server))
        {
            // The expiry and the data version survive the restart with the value; new versions start above it.
            assertArrayEquals(before, server.store().getRecord(b("key-7")));
            final RawClient.Reply ttl = client.recordWrite(RecordWriteRequestFlyweight.OP_TTL, 0, 0, b("key-7"),
                new byte[0]);
            assertEquals(expiry, java.nio.ByteBuffer.wrap(ttl.value()).order(java.nio.ByteOrder.LITTLE_ENDIAN)
                .getLong());
            assertEquals(ValueRecord.dataVersion(before), ttl.version());
            assertEquals(Status.OK, client.put(b("key-8"), b("after")).status());
            assertTrue(ValueRecord.dataVersion(server.store().getRecord(b("key-8"))) > ValueRecord.dataVersion(before),
                "a version issued after the restart is above every one the store held");
            client.delete(b("key-8"));
            assertEquals(Status.OK, client.delete(b("key-7")).status());
            assertEquals(firstEpoch + 1, server.epoch());
            assertEquals(200, server.warmUp().loaded());
            assertTrue(server.warmUp().complete());
            final Welcome welcome = server.welcome();
            final RemoteKey rkey = RemoteKey.unpack(welcome.remoteKey());
            assertArrayEquals(b("value-42"), client.oneSidedGet(rkey, welcome.poolHeaderAddress(), b("key-42")));
            assertArrayEquals(b("value-199"), client.get(b("key-199")).value());
            assertEquals(Status.NOT_FOUND, client.get(b("key-7")).status());
        }
    }

    @Test
    @Timeout(60)
    void shouldServeMissesFromRocksDbAndPromoteThemWhenThePoolIsIncomplete() throws Exception
    {
        // A tiny pool that cannot hold everything: warm-up leaves it INCOMPLETE, RPC GETs fall back to RocksDB.
        // Grace 0: extents evicted to make room for a promotion are reusable at once (no reader in this test races).
        final Map<String, String> small = Map.of("pool.size", "1MiB", "limits.maxValueBytes", "4096",
            "pool.reclaimGraceMs", "0");
        try (KvServer server = KvServer.start(testConfig(dir, small));
             RawClient client = RawClient.attached(server))
        {
            for (int i = 0; i < 400; i++)
            {
                assertEquals(Status.OK, client.put(b("k" + i), valueOf(i)).status());
            }
        }
        try (KvServer server = KvServer.start(testConfig(dir, small));
             RawClient client = RawClient.attached(server))
        {
            assertFalse(server.warmUp().complete());
            final Welcome welcome = server.welcome();
            final RemoteKey rkey = RemoteKey.unpack(welcome.remoteKey());
            assertFalse(client.poolComplete(rkey, welcome.poolHeaderAddress()));
            String missing = null;
            for (int i = 399; i >= 0 && missing == null; i--)
            {
                if (client.oneSidedGet(rkey, welcome.poolHeaderAddress(), b("k" + i)) == null)
                {
                    missing = "k" + i;
                }
            }
            assertTrue(missing != null, "a 1 MiB pool cannot hold 400 x 4 KB");
            final RawClient.Reply reply = client.get(b(missing));
            assertEquals(Status.OK, reply.status());
            assertArrayEquals(valueOf(Integer.parseInt(missing.substring(1))), reply.value());
            assertEquals(1, server.counters().get(ServerCounter.GETS_RPC_FROM_STORE));
            // Promoted: the next read finds it in the pool, one-sided and by RPC.
            assertEquals(1, server.counters().get(ServerCounter.PROMOTIONS));
            assertArrayEquals(reply.value(), client.oneSidedGet(rkey, welcome.poolHeaderAddress(), b(missing)));
            assertArrayEquals(reply.value(), client.get(b(missing)).value());
            assertEquals(1, server.counters().get(ServerCounter.GETS_RPC_FROM_POOL));
            assertTrue(server.counters().gauge("pool.evictions") > 0);
        }
    }

    private static byte[] valueOf(final int i)
    {
        final byte[] v = new byte[4000];
        for (int j = 0; j < v.length; j++)
        {
            v[j] = (byte)(i * 31 + j);
        }
        return v;
    }

    @Test
    @Timeout(60)
    void shouldAnswerFsyncWritesAfterGroupCommitWithoutBlockingTheRequestThread() throws Exception
    {
        try (KvServer server = KvServer.start(testConfig(dir, Map.of("durability", "FSYNC")));
             RawClient client = RawClient.attached(server))
        {
            final List<Long> ids = new ArrayList<>();
            for (int i = 0; i < 200; i++)
            {
                ids.add(client.sendPut(b("f" + i), b("v" + i)));
            }
            // If the request thread waited for each sync, the next PUT would be decoded only after it, so every
            // write would get a sync of its own. Fewer syncs than writes proves the hand-off.
            for (final long id : ids)
            {
                assertEquals(Status.OK, client.await(id).status());
            }
            assertEquals(0, server.counters().get(ServerCounter.IN_FLIGHT_WRITES));
            final long syncs = server.counters().gauge("store.syncs");
            assertTrue(syncs > 0 && syncs < 200, "pipelined writes share syncs: " + syncs);
            assertArrayEquals(b("v150"), client.get(b("f150")).value());
            assertEquals(Status.OK, client.delete(b("f150")).status());
            assertEquals(Status.NOT_FOUND, client.get(b("f150")).status());
        }
    }

    @Test
    @Timeout(60)
    void shouldRedirectKeysOwnedByAnotherNode() throws Exception
    {
        final Map<String, String> cluster = Map.of("node.id", "1",
            "cluster.nodes", "1@127.0.0.1:7400:0-8191,2@10.9.8.7:7500:8192-16383");
        try (KvServer server = KvServer.start(testConfig(dir, cluster));
             RawClient client = RawClient.attached(server))
        {
            String remote = null;
            String local = null;
            for (int i = 0; remote == null || local == null; i++)
            {
                final String k = "key-" + i;
                if (KeyHash.hashSlot(b(k)) >= 8192)
                {
                    remote = k;
                }
                else
                {
                    local = k;
                }
            }
            final RawClient.Reply redirect = client.put(b(remote), b("v"));
            assertEquals(Status.WRONG_NODE, redirect.status());
            assertEquals("10.9.8.7:7500", redirect.text());
            assertEquals(Status.OK, client.put(b(local), b("v")).status());
            assertEquals(2, server.welcome().clusterMap().size());
        }
    }

    /** The index slot an OK PUT's answer carries (its first eight value bytes; the data version follows). */
    private static long locationOf(final RawClient.Reply put)
    {
        assertEquals(ResponseFlyweight.WRITTEN_LENGTH, put.value().length,
            "an OK PUT that was cached names its slot and its data version");
        assertTrue(new UnsafeBuffer(put.value()).getLong(ResponseFlyweight.LOCATION_LENGTH, ByteOrder.LITTLE_ENDIAN) != 0);
        return new UnsafeBuffer(put.value()).getLong(0, ByteOrder.LITTLE_ENDIAN);
    }
}

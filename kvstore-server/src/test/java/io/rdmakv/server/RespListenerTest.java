package io.rdmakv.server;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RESP listener of a node in this process: Redis commands with Redis's replies and error texts, writes through the
 * node's own write path (a native client sees them, counters move), pipelined replies in order, RESP3 after HELLO 3,
 * AUTH against {@code auth.secret}, and bad input (an oversized bulk, a long inline line, a frame that is not a command,
 * too many arguments) answered {@code -ERR Protocol error} and closed while the node keeps serving.
 */
class RespListenerTest
{
    @TempDir
    Path dir;

    /**
     * A free port below Linux's ephemeral range (32768 on): the node binds its control and data ports to port 0,
     * which the kernel picks from that range, so a port freed there could be taken by the node itself first.
     */
    private static int freePort()
    {
        final java.util.Random random = new java.util.Random();
        for (int attempt = 0; attempt < 1000; attempt++)
        {
            final int port = 20_000 + random.nextInt(12_000);
            try (ServerSocket s = new ServerSocket(port))
            {
                return s.getLocalPort();
            }
            catch (final IOException taken)
            {
                // try another
            }
        }
        throw new IllegalStateException("no free port in 20000..31999");
    }

    private KvServer start(final Map<String, String> extra) throws Exception
    {
        final Map<String, String> m = new HashMap<>(Map.of("resp.port", Integer.toString(freePort()),
            "limits.maxKeyBytes", "64"));
        m.putAll(extra);
        return KvServer.start(KvServerTest.testConfig(dir, m));
    }

    private static RespWire.Err err(final Object reply)
    {
        return assertInstanceOf(RespWire.Err.class, reply);
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldServeStringCommandsThroughTheNodesWritePath() throws Exception
    {
        try (KvServer server = start(Map.of());
             RespWire resp = new RespWire(server.respAddress());
             RawClient nativeClient = RawClient.attached(server))
        {
            assertEquals("PONG", resp.call("PING"));
            assertEquals("hi", resp.call("PING", "hi"));
            assertEquals("echo", resp.call("ECHO", "echo"));
            assertEquals("OK", resp.call("SET", "k", "v1"));
            assertEquals("v1", resp.call("GET", "k"));
            assertArrayEquals(b("v1"), nativeClient.get(b("k")).value(), "the native protocol sees a RESP write");
            assertEquals(Status.OK, nativeClient.put(b("n"), b("native")).status());
            assertEquals("native", resp.call("GET", "n"), "RESP sees a native write");
            assertSame(RespWire.NIL, resp.call("GET", "missing"));
            assertEquals("OK", resp.call("MSET", "a", "1", "b", "2"));
            assertEquals(List.of("1", "2", RespWire.NIL), resp.call("MGET", "a", "b", "missing"));
            assertEquals(2L, resp.call("EXISTS", "a", "b", "missing"));
            assertEquals(2L, resp.call("DEL", "a", "missing", "b"));
            assertEquals(0L, resp.call("UNLINK", "a"));
            assertEquals("v1", resp.call("GETDEL", "k"));
            assertSame(RespWire.NIL, resp.call("GETDEL", "k"));
            assertEquals(Status.NOT_FOUND, nativeClient.get(b("k")).status());
            assertEquals("OK", resp.call("SET", "empty", ""));
            assertEquals("", resp.call("GET", "empty"));
            assertEquals(2L, resp.call("DBSIZE"), "n and empty");
            // The node's own counters moved: DEL of three keys and UNLINK of one are four DELETEs; GETDEL of a
            // present key deletes by a record write (DELETE_IF_VERSION of the version its GET read), of a missing one
            // by nothing.
            assertEquals(5, server.counters().get(ServerCounter.PUTS), "SET k, SET empty, MSET's two, the native one");
            assertEquals(4, server.counters().get(ServerCounter.DELETES));
            assertTrue(server.counters().get(ServerCounter.RECORD_WRITES) >= 1, "GETDEL's DELETE_IF_VERSION");
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerRedisErrorsInRedisWords() throws Exception
    {
        try (KvServer server = start(Map.of());
             RespWire resp = new RespWire(server.respAddress()))
        {
            assertEquals("ERR unknown command 'NOSUCH', with args beginning with: 'a' 'b' ",
                err(resp.call("NOSUCH", "a", "b")).text());
            assertEquals("ERR unknown command 'nosuch', with args beginning with: ", err(resp.call("nosuch")).text());
            assertEquals("ERR wrong number of arguments for 'get' command", err(resp.call("GET")).text());
            assertEquals("ERR wrong number of arguments for 'mset' command",
                err(resp.call("MSET", "a", "1", "b")).text());
            assertEquals("ERR syntax error", err(resp.call("SET", "k", "v", "BOGUS")).text());
            for (final String option : List.of("XX", "KEEPTTL", "GET"))
            {
                // A word after an option that takes no argument is a syntax error in Redis's parser.
                assertEquals("ERR syntax error", err(resp.call("SET", "k", "v", option.toLowerCase(), "10")).text());
            }
            assertSame(RespWire.NIL, resp.call("GET", "k"), "a refused SET wrote nothing");
            assertEquals("OK", resp.call("SELECT", "0"));
            assertEquals("ERR DB index is out of range", err(resp.call("SELECT", "1")).text());
            assertEquals("ERR value is not an integer or out of range", err(resp.call("SELECT", "x")).text());
            assertTrue(err(resp.call("GET", "k".repeat(65))).text().contains("exceeds the limit of 64"));
            assertTrue(err(resp.call("SET", "", "v")).text().startsWith("ERR empty keys"));
            assertEquals("ERR AUTH <password> called without any password configured for the default user. Are you " +
                "sure your configuration is correct?", err(resp.call("AUTH", "x")).text());
            assertEquals("PONG", resp.call("PING"), "errors leave the connection open");
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerPipelinedCommandsInTheOrderTheyCame() throws Exception
    {
        pipelineInOrder(Map.of(), 3000);
    }

    /** Under FSYNC a SET is answered when the group committer synced it, on another thread: still in order. */
    @Test
    @Timeout(60)
    void shouldAnswerPipelinedCommandsInOrderWhenWritesCompleteByGroupCommit() throws Exception
    {
        pipelineInOrder(Map.of("durability", "FSYNC"), 500);
    }

    /**
     * A node whose request thread is no event loop (shm: a progress thread): RESP connections get a loop of their own
     * and reach the handler through the hand-off; on tcp they live on the node's loop and call it directly.
     */
    @Test
    @Timeout(60)
    void shouldAnswerInOrderThroughTheHandOffWhenTheRequestThreadIsNoEventLoop() throws Exception
    {
        pipelineInOrder(Map.of("transport", "shm"), 500);
    }

    private void pipelineInOrder(final Map<String, String> settings, final int n) throws Exception
    {
        try (KvServer server = start(settings);
             RespWire resp = new RespWire(server.respAddress()))
        {
            final ByteArrayOutputStream burst = new ByteArrayOutputStream();
            for (int i = 0; i < n; i++)
            {
                // Writes answered after the store, local commands at once, reads of what was just written: one burst.
                burst.writeBytes(RespWire.encode("SET", "key" + (i % 50), "value" + i));
                burst.writeBytes(RespWire.encode("PING", "p" + i));
                burst.writeBytes(RespWire.encode("GET", "key" + (i % 50)));
            }
            resp.send(burst.toByteArray());
            for (int i = 0; i < n; i++)
            {
                assertEquals("OK", resp.read(), "SET " + i);
                assertEquals("p" + i, resp.read(), "PING " + i);
                assertEquals("value" + i, resp.read(), "GET " + i + " sees the SET before it");
            }
            assertEquals(n, server.counters().get(ServerCounter.PUTS));
        }
    }

    @Test
    @Timeout(60)
    void shouldSpeakResp3AfterHello3() throws Exception
    {
        try (KvServer server = start(Map.of());
             RespWire resp = new RespWire(server.respAddress()))
        {
            assertSame(RespWire.NIL, resp.call("GET", "missing"));
            assertEquals('$', resp.lastNullType, "RESP2 null bulk");
            final Map<?, ?> hello = assertInstanceOf(Map.class, resp.call("HELLO", "3", "SETNAME", "tester"));
            assertEquals(3L, hello.get("proto"));
            assertEquals("redis", hello.get("server"));
            assertEquals("standalone", hello.get("mode"));
            assertSame(RespWire.NIL, resp.call("GET", "missing"));
            assertEquals('_', resp.lastNullType, "RESP3 null");
            assertEquals("tester", resp.call("CLIENT", "GETNAME"));
            assertEquals(hello.get("id"), resp.call("CLIENT", "ID"));
            assertTrue(((String)resp.call("CLIENT", "INFO")).contains(" name=tester "));
            assertInstanceOf(Map.class, resp.call("COMMAND", "DOCS", "get"));
            assertEquals("NOPROTO unsupported protocol version", err(resp.call("HELLO", "4")).text());
            assertInstanceOf(List.class, resp.call("HELLO", "2"), "HELLO's map as a flat array in RESP2");
            assertInstanceOf(List.class, resp.call("COMMAND", "DOCS", "get"), "a flat array again in RESP2");
            final String info = (String)resp.call("INFO");
            for (final String section : List.of("# Server", "# Clients", "# Memory", "# Stats", "# Replication",
                "# Cluster", "# Keyspace"))
            {
                assertTrue(info.contains(section), section);
            }
            assertTrue(info.contains("cluster_enabled:1\r\n"), "Redis Cluster clients check it: " + info);
            assertEquals(31L, resp.call("COMMAND", "COUNT"));
        }
    }

    @Test
    @Timeout(60)
    void shouldRequireTheNodesCredential() throws Exception
    {
        try (KvServer server = start(Map.of("auth.secret", "s3cret"));
             RespWire resp = new RespWire(server.respAddress()))
        {
            assertEquals("NOAUTH Authentication required.", err(resp.call("SET", "k", "v")).text());
            assertTrue(err(resp.call("HELLO", "3")).text().startsWith("NOAUTH HELLO must be called"));
            assertEquals("WRONGPASS invalid username-password pair or user is disabled.",
                err(resp.call("AUTH", "guess")).text());
            assertEquals("WRONGPASS invalid username-password pair or user is disabled.",
                err(resp.call("AUTH", "someone", "s3cret")).text());
            assertEquals("OK", resp.call("AUTH", "default", "s3cret"));
            assertEquals("OK", resp.call("SET", "k", "v"));
            try (RespWire other = new RespWire(server.respAddress()))
            {
                assertInstanceOf(Map.class, other.call("HELLO", "3", "AUTH", "default", "s3cret"));
                assertEquals("v", other.call("GET", "k"));
            }
            assertEquals(1, server.counters().get(ServerCounter.PUTS), "the refused SET was not applied");
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerABrokenFrameAndCloseWhileTheNodeKeepsServing() throws Exception
    {
        try (KvServer server = start(Map.of("limits.maxValueBytes", "1024", "resp.maxInlineBytes", "256",
            "resp.maxArguments", "16")))
        {
            final Map<String, byte[]> broken = new HashMap<>();
            broken.put("ERR Protocol error: invalid bulk length", b("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$1025\r\n"));
            broken.put("ERR Protocol error: too big inline request", b("GET " + "x".repeat(400)));
            broken.put("ERR Protocol error: invalid multibulk length", b("*17\r\n"));
            broken.put("ERR Protocol error: expected '$', got ':'", b("*2\r\n$3\r\nGET\r\n:1\r\n"));
            for (final Map.Entry<String, byte[]> e : broken.entrySet())
            {
                try (RespWire resp = new RespWire(server.respAddress()))
                {
                    // A command before the broken frame is answered first, then the error, then the close.
                    final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    bytes.writeBytes(RespWire.encode("SET", "before", "ok"));
                    bytes.writeBytes(e.getValue());
                    resp.send(bytes.toByteArray());
                    assertEquals("OK", resp.read(), e.getKey());
                    assertEquals(e.getKey(), err(resp.read()).text());
                    assertTrue(resp.closedByPeer(), "closed after " + e.getKey());
                }
            }
            try (RespWire resp = new RespWire(server.respAddress()))
            {
                assertEquals("OK", resp.call("SET", "k", "v".repeat(1024)), "a value of the limit is taken");
                assertEquals("v".repeat(1024), resp.call("GET", "k"));
                assertEquals("PONG", resp.call("PING"));
                resp.send(b("PING inline\r\n"));
                assertEquals("inline", resp.read(), "inline commands work");
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldKeepRespConnectionsWithinTheNodesConnectionBudget() throws Exception
    {
        try (KvServer server = start(Map.of("limits.maxConnections", "2"));
             RespWire first = new RespWire(server.respAddress());
             RespWire second = new RespWire(server.respAddress()))
        {
            assertEquals("PONG", first.call("PING"));
            assertEquals("OK", second.call("SET", "k", "v"), "its ATTACH was taken before the SET");
            try (RespWire third = new RespWire(server.respAddress()))
            {
                third.send(RespWire.encode("GET", "k"));
                assertEquals("ERR max number of clients reached", err(third.read()).text());
                assertTrue(third.closedByPeer());
            }
            assertEquals("v", first.call("GET", "k"), "the served connections keep working");
            assertEquals(2, server.counters().get(ServerCounter.ATTACHES));
        }
    }

    @Test
    @Timeout(60)
    void shouldDescribeASingleNodeAsAClusterOfOne() throws Exception
    {
        try (KvServer server = start(Map.of());
             RespWire resp = new RespWire(server.respAddress()))
        {
            assertEquals(12739L, resp.call("CLUSTER", "KEYSLOT", "123456789"));
            assertEquals(resp.call("CLUSTER", "KEYSLOT", "{user1000}.following"),
                resp.call("CLUSTER", "KEYSLOT", "{user1000}.followers"));
            assertEquals(String.format("%040x", 1), resp.call("CLUSTER", "MYID"));
            final int port = server.respAddress().getPort();
            assertEquals(List.of(List.of(0L, 16383L, List.of("127.0.0.1", (long)port, String.format("%040x", 1)))),
                resp.call("CLUSTER", "SLOTS"));
            assertTrue(((String)resp.call("CLUSTER", "INFO")).contains("cluster_state:ok"));
            assertEquals("OK", resp.call("SET", "a", "1"));
            assertEquals("OK", resp.call("SET", "b", "2"));
            assertEquals(List.of("1", "2"), resp.call("MGET", "a", "b"),
                "keys of several slots are served together outside a cluster");
            assertTrue(err(resp.call("CLUSTER", "RESET")).text().startsWith("ERR unknown subcommand 'RESET'"));
        }
    }
}

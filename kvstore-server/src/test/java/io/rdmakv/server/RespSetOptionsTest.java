package io.rdmakv.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SET's conditional options (XX, KEEPTTL, GET and their combinations with NX and the expiries), GETDEL and PERSIST,
 * asserting the answers Redis documents (redis.io/commands/set, getdel, persist, ttl) and its error texts; and the
 * connection commands the issue lists (EXISTS of several keys, UNLINK, DBSIZE, INFO keyspace, CLIENT, COMMAND).
 * Expiry is checked against times far from now, never against the passing of time.
 */
class RespSetOptionsTest
{
    @TempDir
    Path dir;

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }

    private KvServer start() throws Exception
    {
        return KvServer.start(KvServerTest.testConfig(dir.resolve("data"),
            Map.of("resp.port", Integer.toString(freePort()))));
    }

    private static String err(final Object reply)
    {
        return assertInstanceOf(RespWire.Err.class, reply).text();
    }

    @Test
    @Timeout(60)
    void shouldAnswerSetOptionsAsRedisDocumentsThem() throws Exception
    {
        try (KvServer server = start(); RespWire resp = new RespWire(server.respAddress()))
        {
            // XX: only an existing key is written; a missing one answers nil and stays missing.
            assertSame(RespWire.NIL, resp.call("SET", "x", "v", "XX"));
            assertSame(RespWire.NIL, resp.call("GET", "x"));
            assertEquals("OK", resp.call("SET", "x", "v"));
            assertEquals("OK", resp.call("SET", "x", "v2", "xx"));
            assertEquals("v2", resp.call("GET", "x"));
            assertEquals("OK", resp.call("SET", "x", "v3", "XX", "EX", "3600"));
            assertTrue((Long)resp.call("TTL", "x") > 3000, "XX with EX sets the expiry");

            // GET: the old value (nil when there was none), and the key is set.
            assertSame(RespWire.NIL, resp.call("SET", "g", "a", "GET"));
            assertEquals("a", resp.call("SET", "g", "b", "GET"));
            assertEquals("b", resp.call("GET", "g"));
            // NX GET (Redis 7): a present key answers its value and is not written; a missing one is set, nil.
            assertEquals("b", resp.call("SET", "g", "c", "NX", "GET"));
            assertEquals("b", resp.call("GET", "g"));
            assertSame(RespWire.NIL, resp.call("SET", "g2", "n", "NX", "GET"));
            assertEquals("n", resp.call("GET", "g2"));
            // XX GET: a missing key answers nil and stays missing; a present one is replaced, its old value answered.
            assertSame(RespWire.NIL, resp.call("SET", "g3", "v", "XX", "GET"));
            assertSame(RespWire.NIL, resp.call("GET", "g3"));
            assertEquals("b", resp.call("SET", "g", "d", "XX", "GET", "PX", "3600000"));
            assertEquals("d", resp.call("GET", "g"));
            assertTrue((Long)resp.call("PTTL", "g") > 3_000_000);

            // KEEPTTL: the expiry stays; a plain SET drops it; on a missing key there is none to keep.
            assertEquals("OK", resp.call("SET", "t", "v", "EX", "3600"));
            assertEquals("OK", resp.call("SET", "t", "v2", "KEEPTTL"));
            assertEquals("v2", resp.call("GET", "t"));
            assertTrue((Long)resp.call("TTL", "t") > 3000, "KEEPTTL keeps the expiry");
            assertEquals("v2", resp.call("SET", "t", "v3", "KEEPTTL", "GET"));
            assertTrue((Long)resp.call("TTL", "t") > 3000, "KEEPTTL GET keeps the expiry");
            assertEquals("OK", resp.call("SET", "t", "v4", "XX", "KEEPTTL"));
            assertTrue((Long)resp.call("TTL", "t") > 3000);
            assertEquals("v4", resp.call("GET", "t"));
            assertEquals("OK", resp.call("SET", "t", "v5"));
            assertEquals(-1L, resp.call("TTL", "t"));
            assertEquals("OK", resp.call("SET", "t2", "v", "KEEPTTL"));
            assertEquals(-1L, resp.call("TTL", "t2"));
            assertSame(RespWire.NIL, resp.call("SET", "t3", "v", "XX", "KEEPTTL"));
            assertEquals(-2L, resp.call("TTL", "t3"));

            // Redis's errors: syntax first (before any number is read), nothing written.
            assertEquals("ERR syntax error", err(resp.call("SET", "e", "v", "NX", "XX")));
            assertEquals("ERR syntax error", err(resp.call("SET", "e", "v", "XX", "NX")));
            assertEquals("ERR syntax error", err(resp.call("SET", "e", "v", "KEEPTTL", "EX", "10")));
            assertEquals("ERR syntax error", err(resp.call("SET", "e", "v", "PX", "10", "KEEPTTL")));
            assertEquals("ERR syntax error", err(resp.call("SET", "e", "v", "EX", "x", "NX", "XX")));
            assertEquals("ERR syntax error", err(resp.call("SET", "e", "v", "EX")));
            assertEquals("ERR syntax error", err(resp.call("SET", "e", "v", "GETX")));
            assertEquals("ERR invalid expire time in 'set' command", err(resp.call("SET", "e", "v", "GET", "EX",
                "-1")));
            assertSame(RespWire.NIL, resp.call("GET", "e"));
            // The same unit twice is taken, the last one wins (Redis's parser checks only another unit).
            assertEquals("OK", resp.call("SET", "e", "v", "EX", "10", "EX", "3600"));
            assertTrue((Long)resp.call("TTL", "e") > 3000);
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerGetDelPersistAndTtlAsRedis() throws Exception
    {
        try (KvServer server = start(); RespWire resp = new RespWire(server.respAddress()))
        {
            assertSame(RespWire.NIL, resp.call("GETDEL", "missing"));
            assertEquals("OK", resp.call("SET", "d", "value"));
            assertEquals("value", resp.call("GETDEL", "d"));
            assertSame(RespWire.NIL, resp.call("GET", "d"));
            assertSame(RespWire.NIL, resp.call("GETDEL", "d"));

            // PERSIST: 0 for a missing key and for a key without expiry (Redis), 1 when it removed one.
            assertEquals(0L, resp.call("PERSIST", "missing"));
            assertEquals("OK", resp.call("SET", "p", "v"));
            assertEquals(0L, resp.call("PERSIST", "p"));
            assertEquals(1L, resp.call("EXPIRE", "p", "3600"));
            assertEquals(1L, resp.call("PERSIST", "p"));
            assertEquals(-1L, resp.call("TTL", "p"));
            assertEquals(-1L, resp.call("PTTL", "p"));
            assertEquals(0L, resp.call("PERSIST", "p"));
            assertEquals("v", resp.call("GET", "p"));
            assertEquals(-2L, resp.call("TTL", "missing"));
            assertEquals(-2L, resp.call("PTTL", "missing"));

            // Pipelined, the steps of one command are not interleaved with the commands after it.
            final ByteArrayOutputStream batch = new ByteArrayOutputStream();
            for (final String[] c : List.of(new String[] {"SET", "q", "a"}, new String[] {"SET", "q", "b", "XX",
                "GET"}, new String[] {"GET", "q"}, new String[] {"GETDEL", "q"}, new String[] {"GET", "q"},
                new String[] {"SET", "q", "c", "GET"}, new String[] {"PERSIST", "q"}, new String[] {"GET", "q"}))
            {
                batch.writeBytes(RespWire.encode(c));
            }
            resp.send(batch.toByteArray());
            final List<Object> replies = new ArrayList<>();
            for (int i = 0; i < 8; i++)
            {
                replies.add(resp.read());
            }
            assertEquals(List.of("OK", "a", "b", "b", RespWire.NIL, RespWire.NIL, 0L, "c"), replies);
        }
    }

    /**
     * GETDEL is one step on the key: of several connections racing to GETDEL the same value, exactly one gets it
     * (a GET then a DELETE would hand it to each that read before the first delete).
     */
    @Test
    @Timeout(120)
    void shouldHandAValueToExactlyOneOfConcurrentGetDels() throws Exception
    {
        final int racers = 4;
        final int rounds = 200;
        try (KvServer server = start(); RespWire setter = new RespWire(server.respAddress()))
        {
            final ExecutorService pool = Executors.newFixedThreadPool(racers);
            try
            {
                final List<RespWire> wires = new ArrayList<>();
                for (int i = 0; i < racers; i++)
                {
                    wires.add(new RespWire(server.respAddress()));
                }
                for (int r = 0; r < rounds; r++)
                {
                    assertEquals("OK", setter.call("SET", "race", "round-" + r));
                    final CountDownLatch go = new CountDownLatch(1);
                    final List<Future<Object>> got = new ArrayList<>();
                    for (final RespWire w : wires)
                    {
                        got.add(pool.submit(() ->
                        {
                            go.await();
                            return w.call("GETDEL", "race");
                        }));
                    }
                    go.countDown();
                    int winners = 0;
                    for (final Future<Object> f : got)
                    {
                        final Object reply = f.get();
                        if (reply != RespWire.NIL)
                        {
                            assertEquals("round-" + r, reply);
                            winners++;
                        }
                    }
                    assertEquals(1, winners, "round " + r);
                }
                for (final RespWire w : wires)
                {
                    w.close();
                }
            }
            finally
            {
                pool.shutdownNow();
            }
        }
    }

    /** Under FSYNC durability GETDEL, SET ... XX, EXPIRE and PERSIST are served as under DEFAULT. */
    @Test
    @Timeout(60)
    void shouldServeGetDelUnderFsyncDurability() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("data"),
            Map.of("resp.port", Integer.toString(freePort()), "durability", "FSYNC")));
             RespWire resp = new RespWire(server.respAddress()))
        {
            assertEquals("OK", resp.call("SET", "k", "v"));
            assertEquals("v", resp.call("GETDEL", "k"));
            assertSame(RespWire.NIL, resp.call("GET", "k"));
            assertSame(RespWire.NIL, resp.call("GETDEL", "k"));
            assertSame(RespWire.NIL, resp.call("SET", "k", "v", "XX"), "missing: nil, decided by the read alone");
            assertEquals("OK", resp.call("SET", "k", "v"));
            assertEquals("OK", resp.call("SET", "k", "w", "XX"));
            assertEquals("w", resp.call("GET", "k"));
            assertEquals(0L, resp.call("PERSIST", "missing"));
            assertEquals(1L, resp.call("EXPIRE", "k", "100"));
            assertEquals(1L, resp.call("PERSIST", "k"));
            assertEquals(-1L, resp.call("TTL", "k"));
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerTheKeyspaceAndConnectionCommandsAsRedis() throws Exception
    {
        try (KvServer server = start(); RespWire resp = new RespWire(server.respAddress()))
        {
            assertEquals(0L, resp.call("DBSIZE"));
            assertTrue(!((String)resp.call("INFO", "keyspace")).contains("db0:"), "no db0 line while empty");
            assertEquals("OK", resp.call("MSET", "k1", "a", "k2", "b"));
            // EXISTS counts a key named twice twice (redis.io/commands/exists).
            assertEquals(3L, resp.call("EXISTS", "k1", "k2", "nosuchkey", "k1"));
            assertEquals(2L, resp.call("DBSIZE"));
            assertTrue(((String)resp.call("INFO", "keyspace")).contains("db0:keys=2,"));
            assertEquals(2L, resp.call("UNLINK", "k1", "k2", "nosuchkey"));
            assertEquals(0L, resp.call("EXISTS", "k1"));

            assertSame(RespWire.NIL, resp.call("CLIENT", "GETNAME"));
            assertEquals("OK", resp.call("CLIENT", "SETNAME", "worker-1"));
            assertEquals("worker-1", resp.call("CLIENT", "GETNAME"));
            final long id = (Long)resp.call("CLIENT", "ID");
            final String info = (String)resp.call("CLIENT", "INFO");
            assertTrue(info.startsWith("id=" + id + " ") && info.contains(" name=worker-1 "), info);

            final List<?> all = assertInstanceOf(List.class, resp.call("COMMAND"));
            assertEquals((long)all.size(), resp.call("COMMAND", "COUNT"));
            final List<?> docs = assertInstanceOf(List.class, resp.call("COMMAND", "DOCS", "scan", "getdel"));
            assertEquals(4, docs.size(), "RESP2: name, docs, name, docs");
            assertTrue(docs.contains("scan") && docs.contains("getdel"), String.valueOf(docs));
            final List<?> scanInfo = assertInstanceOf(List.class, resp.call("COMMAND", "INFO", "scan"));
            assertEquals(-2L, assertInstanceOf(List.class, scanInfo.get(0)).get(1), "SCAN's arity");
            for (final String section : List.of("# Server", "# Clients", "# Memory", "# Stats", "# Replication",
                "# Keyspace"))
            {
                assertTrue(((String)resp.call("INFO")).contains(section), section);
            }
        }
    }
}

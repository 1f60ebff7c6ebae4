package io.rdmakv.it.resp;

import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisDataException;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Jedis, a Redis client as a service would use it, against a node process's RESP port: the credential, the string
 * commands, a pipeline answered in order, RESP3, and every SET Jedis saw acknowledged still there after {@code kill -9}
 * of the node (the RESP path writes through the node's WAL before it answers, as the native protocol does).
 */
@ExtendWith(ProcessJanitor.class)
class RespJedisTest
{
    private static final String SECRET = "s3cret";

    @TempDir
    Path tmp;

    private static Jedis jedis(final HostAndPort at, final RedisProtocol protocol)
    {
        return new Jedis(at, DefaultJedisClientConfig.builder().password(SECRET).protocol(protocol)
            .clientName("resp-it").socketTimeoutMillis(30_000).build());
    }

    @Test
    @Timeout(240)
    void shouldServeJedisAndKeepEveryAcknowledgedSetAcrossKillNine() throws Exception
    {
        final int port = FreePorts.take(1)[0];
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("resp-jedis")
            .setting("resp.port", Integer.toString(port)).setting("auth.secret", SECRET).start();
        assertEquals("127.0.0.1:" + port, server.readyFields().get("resp"), "READY names the RESP address");
        final HostAndPort at = new HostAndPort("127.0.0.1", port);
        final int keys = 2000;
        try (Jedis jedis = jedis(at, RedisProtocol.RESP2))
        {
            assertEquals("PONG", jedis.ping());
            assertEquals("resp-it", jedis.clientGetname(), "the name Jedis set when it connected");
            assertEquals("OK", jedis.set("greeting", "hello"));
            assertEquals("hello", jedis.get("greeting"));
            assertNull(jedis.get("missing"));
            assertEquals("OK", jedis.mset("a", "1", "b", "2"));
            assertEquals(Arrays.asList("1", "2", null), jedis.mget("a", "b", "missing"));
            assertEquals(2L, jedis.exists("a", "b", "missing"));
            assertEquals(1L, jedis.del("a"));
            assertEquals("2", jedis.getDel("b"));
            assertEquals(1L, jedis.dbSize());
            assertTrue(jedis.info("keyspace").contains("db0:keys=1"), jedis.info("keyspace"));
            final JedisDataException unknown = assertThrows(JedisDataException.class,
                () -> jedis.sendCommand(() -> "NOSUCH".getBytes(), "x"));
            assertEquals("ERR unknown command 'NOSUCH', with args beginning with: 'x' ", unknown.getMessage());

            final Pipeline pipeline = jedis.pipelined();
            for (int i = 0; i < keys; i++)
            {
                pipeline.set("key-" + i, "value-" + i);
                pipeline.get("key-" + i);
            }
            final List<Object> replies = pipeline.syncAndReturnAll();
            assertEquals(2 * keys, replies.size());
            for (int i = 0; i < keys; i++)
            {
                assertEquals("OK", replies.get(2 * i), "SET " + i);
                assertEquals("value-" + i, replies.get(2 * i + 1), "GET " + i + " answered in order");
            }
        }
        try (Jedis resp3 = jedis(at, RedisProtocol.RESP3))
        {
            assertEquals("value-7", resp3.get("key-7"));
            assertNull(resp3.get("missing"), "a RESP3 null");
            assertEquals(Arrays.asList("value-1", null), resp3.mget("key-1", "missing"));
        }
        try (Jedis wrong = new Jedis(at, DefaultJedisClientConfig.builder().socketTimeoutMillis(30_000).build()))
        {
            final JedisDataException noAuth = assertThrows(JedisDataException.class, () -> wrong.get("greeting"));
            assertEquals("NOAUTH Authentication required.", noAuth.getMessage());
        }

        server.kill();
        server.restart();
        try (Jedis jedis = jedis(at, RedisProtocol.RESP2))
        {
            final List<String> lost = new ArrayList<>();
            for (int i = 0; i < keys; i++)
            {
                if (!("value-" + i).equals(jedis.get("key-" + i)))
                {
                    lost.add("key-" + i);
                }
            }
            assertEquals(List.of(), lost, "acknowledged SETs lost across kill -9");
            assertEquals("hello", jedis.get("greeting"));
            assertEquals(keys + 1L, jedis.dbSize());
        }
    }
}

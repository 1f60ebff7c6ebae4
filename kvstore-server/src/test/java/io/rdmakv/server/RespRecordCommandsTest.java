package io.rdmakv.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RESP commands on versions and expiry (issue 32's records): SET with EX/PX/EXAT/PXAT/NX, INCR/DECR/INCRBY/DECRBY,
 * EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT, TTL/PTTL, PERSIST, with Redis's replies and error texts where Redis documents
 * them. Expiry is checked against values far from now (an hour, a past time), never against the passing of time.
 */
class RespRecordCommandsTest
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

    private static String err(final Object reply)
    {
        return assertInstanceOf(RespWire.Err.class, reply).text();
    }

    @Test
    @Timeout(60)
    void shouldCountExpireAndSetConditionallyAsRedisDoes() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("data"),
            Map.of("resp.port", Integer.toString(freePort()))));
             RespWire resp = new RespWire(server.respAddress()))
        {
            // Counters: a missing key counts from 0; a non-integer is refused in Redis's words and left alone.
            assertEquals(1L, resp.call("INCR", "c"));
            assertEquals(11L, resp.call("INCRBY", "c", "10"));
            assertEquals(10L, resp.call("DECR", "c"));
            assertEquals(-5L, resp.call("DECRBY", "c", "15"));
            assertEquals("-5", resp.call("GET", "c"));
            assertEquals("OK", resp.call("SET", "s", "text"));
            assertEquals("ERR value is not an integer or out of range", err(resp.call("INCR", "s")));
            assertEquals("ERR value is not an integer or out of range", err(resp.call("INCRBY", "c", "x")));
            assertEquals("text", resp.call("GET", "s"));

            // TTL of a missing key and of a key without expiry (Redis: -2 and -1).
            assertEquals(-2L, resp.call("TTL", "missing"));
            assertEquals(-1L, resp.call("TTL", "s"));
            assertEquals(0L, resp.call("EXPIRE", "missing", "100"));
            assertEquals(1L, resp.call("EXPIRE", "s", "3600"));
            final long ttl = (Long)resp.call("TTL", "s");
            assertTrue(ttl > 3000 && ttl <= 3600, "TTL after EXPIRE 3600: " + ttl);
            final long pttl = (Long)resp.call("PTTL", "s");
            assertTrue(pttl > 3_000_000 && pttl <= 3_600_000, "PTTL: " + pttl);
            assertEquals(1L, resp.call("PERSIST", "s"));
            assertEquals(-1L, resp.call("TTL", "s"));
            assertEquals(0L, resp.call("PERSIST", "s"), "no expiry left to remove (Redis: 0)");
            assertEquals(0L, resp.call("PERSIST", "missing"));

            // An expiry in the past expires the key at once.
            assertEquals(1L, resp.call("PEXPIREAT", "s", "1"));
            assertSame(RespWire.NIL, resp.call("GET", "s"));
            assertEquals(-2L, resp.call("TTL", "s"));

            // SET with expiry, and NX (nil when the key exists, as Redis answers).
            assertEquals("OK", resp.call("SET", "e", "v", "EX", "3600"));
            assertTrue((Long)resp.call("TTL", "e") > 3000);
            assertEquals("OK", resp.call("SET", "e", "v2"));
            assertEquals(-1L, resp.call("TTL", "e"), "a plain SET drops the expiry, as in Redis");
            assertEquals("OK", resp.call("SET", "p", "v", "PX", "3600000", "NX"));
            assertSame(RespWire.NIL, resp.call("SET", "p", "other", "NX"));
            assertEquals("v", resp.call("GET", "p"));
            assertEquals("OK", resp.call("SET", "gone", "v", "PXAT", "1"), "already expired: stored, never seen");
            assertSame(RespWire.NIL, resp.call("GET", "gone"));

            // Redis's errors.
            assertEquals("ERR invalid expire time in 'set' command", err(resp.call("SET", "k", "v", "EX", "0")));
            assertEquals("ERR value is not an integer or out of range", err(resp.call("SET", "k", "v", "EX", "x")));
            assertEquals("ERR syntax error", err(resp.call("SET", "k", "v", "EX", "1", "PX", "1")));
            assertEquals("ERR wrong number of arguments for 'incrby' command", err(resp.call("INCRBY", "c")));
            assertTrue(err(resp.call("EXPIRE", "c", "10", "NX")).contains("not supported"));
            assertEquals("ERR decrement would overflow", err(resp.call("DECRBY", "c", "-9223372036854775808")));
        }
    }
}

package io.rdmakv.server;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SCAN on one node: Redis's cursor (an unsigned decimal, 0 starts and ends), MATCH, COUNT, TYPE and their errors;
 * every key present throughout a scan is returned although keys come and go between its calls; expired keys never;
 * at most 1,000 keys examined per call.
 */
class RespScanTest
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

    /** Pipelined SETs of {@code keys} (each answered OK). */
    private static void setAll(final RespWire resp, final List<String> keys, final String... options)
        throws IOException
    {
        final ByteArrayOutputStream batch = new ByteArrayOutputStream();
        for (final String k : keys)
        {
            final String[] command = new String[3 + options.length];
            command[0] = "SET";
            command[1] = k;
            command[2] = "v";
            System.arraycopy(options, 0, command, 3, options.length);
            batch.writeBytes(RespWire.encode(command));
        }
        resp.send(batch.toByteArray());
        for (int i = 0; i < keys.size(); i++)
        {
            assertEquals("OK", resp.read());
        }
    }

    private static List<String> range(final String prefix, final int from, final int to)
    {
        return java.util.stream.IntStream.range(from, to).mapToObj(i -> prefix + i).toList();
    }

    @Test
    @Timeout(120)
    void shouldReturnEveryKeyPresentThroughoutTheScanAndNoExpiredKey() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("data"),
            Map.of("resp.port", Integer.toString(freePort()))));
             RespWire resp = new RespWire(server.respAddress()))
        {
            final List<String> stay = range("stay:", 0, 2_000);
            final List<String> leave = range("leave:", 0, 500);
            setAll(resp, stay);
            setAll(resp, leave);
            setAll(resp, range("expired:", 0, 300), "PXAT", "1");

            final Set<String> seen = new HashSet<>();
            String cursor = "0";
            int calls = 0;
            do
            {
                final List<?> reply = assertInstanceOf(List.class, resp.call("SCAN", cursor, "COUNT", "100000"));
                cursor = (String)reply.get(0);
                final List<?> keys = assertInstanceOf(List.class, reply.get(1));
                assertTrue(keys.size() <= 1_000, "at most 1,000 keys examined per call: " + keys.size());
                // An unsigned 64-bit decimal, as redis-py's int() and redis-cli's strtoull read it.
                assertTrue(new BigInteger(cursor).bitLength() <= 64, cursor);
                for (final Object k : keys)
                {
                    seen.add((String)k);
                }
                if (calls == 1)
                {
                    // Between two calls keys go and come: those present throughout are all returned regardless.
                    final ByteArrayOutputStream batch = new ByteArrayOutputStream();
                    for (final String k : leave)
                    {
                        batch.writeBytes(RespWire.encode("DEL", k));
                    }
                    resp.send(batch.toByteArray());
                    for (int i = 0; i < leave.size(); i++)
                    {
                        assertEquals(1L, resp.read());
                    }
                    setAll(resp, range("new:", 0, 500));
                }
                calls++;
                assertTrue(calls < 1_000, "the scan ends");
            }
            while (!cursor.equals("0"));
            assertTrue(seen.containsAll(stay), "every key present throughout: missing " +
                stay.stream().filter(k -> !seen.contains(k)).limit(5).toList());
            assertTrue(seen.stream().noneMatch(k -> k.startsWith("expired:")), "expired keys are never returned");
            assertTrue(calls >= 3, "2,500+ keys, at most 1,000 a call: " + calls);

            // MATCH, the default COUNT, TYPE.
            final Set<String> matched = new HashSet<>();
            cursor = "0";
            do
            {
                final List<?> reply = assertInstanceOf(List.class, resp.call("SCAN", cursor, "MATCH", "stay:1?"));
                cursor = (String)reply.get(0);
                final List<?> keys = (List<?>)reply.get(1);
                assertTrue(keys.size() <= 10, "COUNT defaults to 10");
                keys.forEach(k -> matched.add((String)k));
            }
            while (!cursor.equals("0"));
            assertEquals(new HashSet<>(range("stay:1", 0, 10)), matched);
            assertEquals(List.of("0", List.of()), resp.call("SCAN", "0", "TYPE", "hash"), "every key is a string");
            final List<?> strings = assertInstanceOf(List.class, resp.call("SCAN", "0", "TYPE", "string"));
            assertEquals(10, ((List<?>)strings.get(1)).size());

            // Redis's errors.
            assertEquals("ERR invalid cursor", err(resp.call("SCAN", "abc")));
            assertEquals("ERR invalid cursor", err(resp.call("SCAN", "-1")));
            assertEquals("ERR invalid cursor", err(resp.call("SCAN", "18446744073709551616")));
            assertEquals("ERR value is not an integer or out of range", err(resp.call("SCAN", "0", "COUNT", "x")));
            assertEquals("ERR syntax error", err(resp.call("SCAN", "0", "COUNT", "0")));
            assertEquals("ERR syntax error", err(resp.call("SCAN", "0", "MATCH")));
            assertEquals("ERR syntax error", err(resp.call("SCAN", "0", "LIMIT", "3")));
            assertEquals("ERR wrong number of arguments for 'scan' command", err(resp.call("SCAN")));
        }
    }
}

package io.rdmakv.server;

import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RESP's MSET of keys of one hash slot is one atomic batch (issue 32 item 5), refused whole when too big; under each
 * durability.
 */
class RespMsetTest
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

    @ParameterizedTest
    @ValueSource(strings = {"DEFAULT", "FSYNC"})
    @Timeout(60)
    void shouldSetKeysOfOneSlotInOneAtomicBatch(final String durability) throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("data"),
            Map.of("resp.port", Integer.toString(freePort()), "durability", durability)));
             RespWire resp = new RespWire(server.respAddress()))
        {
            assertEquals("OK", resp.call("MSET", "{c}:a", "1", "{c}:b", "2", "{c}:a", "3"));
            assertEquals("3", resp.call("GET", "{c}:a"), "a key given twice: the later value, as in Redis");
            assertEquals("2", resp.call("GET", "{c}:b"));
            assertTrue(server.counters().render().contains("batchWrites=1\n"), "one atomic batch");

            // Keys of two slots on a single node: one PUT each, as before (not a batch).
            assertEquals("OK", resp.call("MSET", "{c}:a", "4", "{d}:b", "5"));
            assertEquals("4", resp.call("GET", "{c}:a"));
            assertTrue(server.counters().render().contains("batchWrites=1\n"), "no batch for two slots");

            // Beyond one batch (the test node's limits): refused whole, nothing written.
            final int maxValue = server.config().maxValueBytes();
            final List<String> args = new ArrayList<>(List.of("MSET"));
            for (int i = 0; i < 3; i++)
            {
                args.add("{c}:big" + i);
                args.add("v".repeat(maxValue / 2));
            }
            final Object refused = resp.call(args.toArray(new String[0]));
            assertTrue(assertInstanceOf(RespWire.Err.class, refused).text().contains("exceeds one atomic batch"),
                refused.toString());
            assertNull(server.store().get("{c}:big0".getBytes(StandardCharsets.UTF_8)), "nothing written");
        }
    }
}

package io.rdmakv.client;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every operation in every key form (byte[], String, ByteBuffer), synchronous and asynchronous, reaches the node. */
@Timeout(30)
class KvClientOverloadsTest
{
    @AutoClose
    private final LaidOutPoolNode node = new LaidOutPoolNode();

    @Test
    void shouldServeEveryOperationForStringKeys() throws Exception
    {
        try (KvClient client = node.client().getMode(GetMode.RPC).build())
        {
            client.put("s1", "text");
            client.put("s2", bytes("bytes"));
            assertArrayEquals(bytes("text"), node.store.get("s1"));
            assertArrayEquals(bytes("bytes"), client.get("s2"));
            assertTrue(client.delete("s2"));
            assertFalse(client.delete("s2"));

            client.putAsync("a1", "x").get(10, TimeUnit.SECONDS);
            client.putAsync("a2", bytes("y")).get(10, TimeUnit.SECONDS);
            assertArrayEquals(bytes("x"), client.getAsync("a1").get(10, TimeUnit.SECONDS));
            assertTrue(client.deleteAsync("a1").get(10, TimeUnit.SECONDS));
            assertNull(client.getAsync("a1").get(10, TimeUnit.SECONDS));

            final List<byte[]> values = client.multiGet("s1", "absent", "a2");
            assertArrayEquals(bytes("text"), values.get(0));
            assertNull(values.get(1));
            assertArrayEquals(bytes("y"), values.get(2));
            final List<byte[]> async = client.multiGetAsync("a2", "s1").get(10, TimeUnit.SECONDS);
            assertArrayEquals(bytes("y"), async.get(0));
            assertArrayEquals(bytes("text"), async.get(1));
        }
    }

    @Test
    void shouldServeEveryAsyncOperationForByteAndBufferKeys() throws Exception
    {
        try (KvClient client = node.client().getMode(GetMode.RPC).build())
        {
            client.putAsync(ByteBuffer.wrap(bytes("b1")), ByteBuffer.wrap(bytes("v1"))).get(10, TimeUnit.SECONDS);
            client.putAsync(bytes("b2"), bytes("v2")).get(10, TimeUnit.SECONDS);
            assertArrayEquals(bytes("v1"), client.getAsync(ByteBuffer.wrap(bytes("b1"))).get(10, TimeUnit.SECONDS));
            final ByteBuffer key = ByteBuffer.wrap(bytes("..b2")).position(2);
            assertTrue(client.deleteAsync(key).get(10, TimeUnit.SECONDS));
            assertEquals(2, key.position(), "the buffer's position does not move");
            assertFalse(client.deleteAsync(bytes("b2")).get(10, TimeUnit.SECONDS));
            final List<byte[]> values = client.multiGetAsync(Arrays.asList(bytes("b1"), bytes("b2")))
                .get(10, TimeUnit.SECONDS);
            assertArrayEquals(bytes("v1"), values.get(0));
            assertNull(values.get(1));
            assertTrue(client.multiGetAsync(List.of()).get(10, TimeUnit.SECONDS).isEmpty());
        }
    }
}

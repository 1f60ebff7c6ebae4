package io.rdmakv.client;

import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The API surface: sync, async, ByteBuffer forms, multiGet, stats, builder validation, back-pressure. */
@Timeout(30)
class KvClientApiTest
{
    @AutoClose
    private final LaidOutPoolNode node = new LaidOutPoolNode();

    @Test
    void shouldPutGetDeleteThroughTheNode()
    {
        try (KvClient client = node.client().getMode(GetMode.RPC).build())
        {
            client.put(bytes("k"), bytes("v"));
            assertArrayEquals(bytes("v"), node.store.get("k"));
            assertArrayEquals(bytes("v"), client.get(bytes("k")));
            assertTrue(client.delete(bytes("k")));
            assertFalse(client.delete(bytes("k")));
            assertNull(client.get(bytes("k")));
        }
    }

    @Test
    void shouldAcceptByteBuffersWithoutMovingThem()
    {
        node.put("buf", "fer");
        try (KvClient client = node.client().build())
        {
            final ByteBuffer key = LaidOutPoolNode.direct("buf");
            assertArrayEquals(bytes("fer"), client.get(key));
            assertEquals(0, key.position());
            final ByteBuffer heapKey = ByteBuffer.wrap(bytes("xxheap")).position(2);
            client.put(heapKey, ByteBuffer.wrap(bytes("value")));
            assertArrayEquals(bytes("value"), node.store.get("heap"));
            assertTrue(client.delete(ByteBuffer.wrap(bytes("heap"))));
            assertArrayEquals(bytes("fer"), client.getAsync(LaidOutPoolNode.direct("buf")).join());
        }
    }

    @Test
    void shouldRunManyAsyncRequestsBeyondInFlightBound()
    {
        for (int i = 0; i < 200; i++)
        {
            node.put("key-" + i, "value-" + i);
        }
        try (KvClient client = node.client().maxInFlight(4).build())
        {
            final List<CompletableFuture<byte[]>> gets = new ArrayList<>();
            final List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < 200; i++)
            {
                gets.add(client.getAsync(bytes("key-" + i)));
                puts.add(client.putAsync(bytes("new-" + i), bytes("n" + i)));
            }
            for (int i = 0; i < 200; i++)
            {
                assertArrayEquals(bytes("value-" + i), gets.get(i).join());
                puts.get(i).join();
                assertArrayEquals(bytes("n" + i), node.store.get("new-" + i));
            }
        }
    }

    @Test
    void shouldMultiGetInOrderWithNullsForAbsentKeys()
    {
        node.put("a", "1");
        node.storeOnly("b", "2");
        try (KvClient client = node.client().build())
        {
            final List<byte[]> values = client.multiGet(List.of(bytes("a"), bytes("missing"), bytes("b")));
            assertEquals(3, values.size());
            assertArrayEquals(bytes("1"), values.get(0));
            assertNull(values.get(1));
            assertArrayEquals(bytes("2"), values.get(2));
        }
    }

    @Test
    void shouldReportNodeAndClientStats()
    {
        node.put("a", "1");
        try (KvClient client = node.client().build())
        {
            client.get(bytes("a"));
            final KvStats stats = client.stats();
            assertEquals("1", stats.nodes().get(LaidOutPoolNode.NODE_ID).get("keys"));
            assertEquals(1, stats.client(ClientCounter.GET_ONE_SIDED_HITS));
            final String text = stats.format();
            assertTrue(text.contains("node.1.keys=1\n"), text);
            assertTrue(text.contains("client.get.oneSided.hits=1\n"), text);
        }
    }

    @Test
    void shouldServeConcurrentCallersFromOneClient() throws Exception
    {
        for (int i = 0; i < 100; i++)
        {
            node.put("key-" + i, "value-" + i);
        }
        try (KvClient client = node.client().maxInFlight(8).build())
        {
            final List<Thread> threads = new ArrayList<>();
            final List<Throwable> errors = new java.util.concurrent.CopyOnWriteArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                final int id = t;
                final Thread thread = new Thread(() ->
                {
                    try
                    {
                        for (int i = 0; i < 300; i++)
                        {
                            final int k = (i * 7 + id) % 100;
                            assertArrayEquals(bytes("value-" + k), client.get(bytes("key-" + k)));
                            if (i % 10 == 0)
                            {
                                client.put(bytes("t" + id + "-" + i), bytes("x"));
                            }
                        }
                    }
                    catch (final Throwable ex)
                    {
                        errors.add(ex);
                    }
                });
                threads.add(thread);
                thread.start();
            }
            for (final Thread thread : threads)
            {
                thread.join();
            }
            assertTrue(errors.isEmpty(), () -> "errors: " + errors);
            assertEquals(1200, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
            assertEquals(120, client.diagnostics().counters().get(ClientCounter.RPCS));
        }
    }

    @Test
    void shouldLeaveNoThreadsBehindAfterClose() throws Exception
    {
        node.put("a", "1");
        try (KvClient warm = node.client().build())
        {
            warm.get(bytes("a"));
        }
        // The threads alive now (the warm-up client's may still be ending): only threads started later count.
        final Set<Thread> before = clientThreads();
        for (int i = 0; i < 5; i++)
        {
            try (KvClient client = node.client().build())
            {
                assertArrayEquals(bytes("1"), client.get(bytes("a")));
                client.put(bytes("b"), bytes("2"));
            }
        }
        final long deadline = System.nanoTime() + 10_000_000_000L;
        while (!startedSince(before).isEmpty() && System.nanoTime() < deadline)
        {
            Thread.sleep(50);
        }
        assertEquals(List.of(), startedSince(before), "threads the closed clients left behind");
    }

    /** Live client threads: without the JVM's own (the node's share the names, and it stays up). */
    private static Set<Thread> clientThreads()
    {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive)
            .filter(t -> t.getName().contains("rdmakv") || t.getName().contains("tcp-"))
            .collect(Collectors.toSet());
    }

    /** The names of live client threads that are not in {@code before}. */
    private static List<String> startedSince(final Set<Thread> before)
    {
        return clientThreads().stream().filter(t -> !before.contains(t)).map(Thread::getName).sorted().toList();
    }

    @Test
    void shouldValidateBuilderSettings()
    {
        assertThrows(IllegalArgumentException.class, () -> KvClient.builder().build(), "no server");
        assertThrows(IllegalArgumentException.class, () -> KvClient.builder().server("nohostport"));
        assertThrows(IllegalArgumentException.class, () -> KvClient.builder().server("h:99999"));
        assertThrows(IllegalArgumentException.class, () -> KvClient.builder().maxInFlight(0));
        assertThrows(IllegalArgumentException.class, () -> KvClient.builder().oneSidedBufferBytes(100));
        assertThrows(IllegalArgumentException.class, () -> KvClient.builder().requestTimeout(java.time.Duration.ZERO));
        assertThrows(IllegalArgumentException.class, () -> GetMode.parse("sideways"));
        assertEquals(GetMode.ONE_SIDED, GetMode.parse("one_sided"));
        assertEquals(new HostPort("::1", 7400), HostPort.parse("[::1]:7400"));
        assertEquals("[::1]:7400", HostPort.parse("[::1]:7400").toString());
        final KvClientConfig config = KvClient.builder().server("h:1").secret("secret").config();
        assertFalse(config.toString().contains("secret"), "the credential is never printed");
    }
}

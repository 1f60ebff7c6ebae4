package io.rdmakv.client;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.PutRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.select.TransportSelector;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;

import static io.rdmakv.client.OneSidedGetProtocolTest.bytes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The client against a real node (RocksDB, pinned-arena pool, TCP transport, Netty control plane) in-process. */
@Timeout(60)
class KvClientAgainstServerTest
{
    @TempDir
    Path dir;

    private KvServer start(final Map<String, String> extra)
    {
        return InProcessNode.start(dir, extra);
    }

    private static KvClientBuilder client(final KvServer server)
    {
        return InProcessNode.client(server);
    }

    @Test
    void shouldServeGetsOneSidedFromTheNodesPool()
    {
        try (KvServer server = start(Map.of()); KvClient client = client(server).build())
        {
            for (int i = 0; i < 100; i++)
            {
                client.put(bytes("key-" + i), bytes("value-" + i));
            }
            for (int i = 0; i < 100; i++)
            {
                assertArrayEquals(bytes("value-" + i), client.get(bytes("key-" + i)));
            }
            assertNull(client.get(bytes("absent")));
            assertEquals(100, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS));
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_MISSES), "pool COMPLETE: miss is final");
            assertEquals(0, server.counters().get(ServerCounter.GETS_RPC), "no GET reached the node's CPU path");
            assertEquals(100, server.counters().get(ServerCounter.PUTS));
        }
    }

    @Test
    void shouldSeeOverwritesAndDeletesOneSided()
    {
        try (KvServer server = start(Map.of()); KvClient client = client(server).build())
        {
            client.put(bytes("k"), bytes("first"));
            assertArrayEquals(bytes("first"), client.get(bytes("k")));
            client.put(bytes("k"), bytes("second, longer than the first"));
            assertArrayEquals(bytes("second, longer than the first"), client.get(bytes("k")));
            assertTrue(client.delete(bytes("k")), "the key existed");
            assertNull(client.get(bytes("k")));
            assertEquals(0, server.counters().get(ServerCounter.GETS_RPC));
        }
    }

    @Test
    void shouldReportWhetherADeletedKeyExisted() throws Exception
    {
        try (KvServer server = start(Map.of()); KvClient client = client(server).build())
        {
            assertFalse(client.delete(bytes("never-written")), "a key that never existed");
            client.put(bytes("k"), bytes("v"));
            assertTrue(client.delete(ByteBuffer.wrap(bytes("k"))));
            assertFalse(client.delete(bytes("k")), "already deleted");
            assertFalse(client.deleteAsync(bytes("k")).get(20, TimeUnit.SECONDS));
            assertEquals(4, server.counters().get(ServerCounter.DELETES));
            assertEquals(3, server.counters().get(ServerCounter.DELETES_NOT_FOUND));
        }
    }

    @Test
    void shouldServeGetsByRpcWhenAutoOnTcp()
    {
        try (KvServer server = start(Map.of());
             KvClient client = client(server).getMode(GetMode.AUTO).build())
        {
            assertEquals(GetMode.RPC, client.diagnostics().getMode());
            client.put(bytes("k"), bytes("v"));
            assertArrayEquals(bytes("v"), client.get(bytes("k")));
            assertNull(client.get(bytes("nope")));
            assertEquals(2, server.counters().get(ServerCounter.GETS_RPC));
        }
    }

    @Test
    void shouldFetchLargeValuesByRpcAndMaxValuesExactly()
    {
        try (KvServer server = start(Map.of()); KvClient client = client(server).oneSidedBufferBytes(4096).build())
        {
            final byte[] large = new byte[65536];
            Arrays.fill(large, (byte)7);
            large[65535] = 9;
            client.put(bytes("large"), large);
            assertArrayEquals(large, client.get(bytes("large")));
            assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_FALLBACKS));
            final IllegalArgumentException tooLarge = assertThrows(IllegalArgumentException.class,
                () -> client.put(bytes("k"), new byte[65537]));
            assertTrue(tooLarge.getMessage().contains("65536"), tooLarge.getMessage());
            assertEquals(65536, client.maxValueLength());
        }
    }

    @Test
    void shouldBeRejectedWithoutTheCredentialAndAcceptedWithIt() throws Exception
    {
        try (KvServer server = start(Map.of("auth.secret", "s3cret")))
        {
            final KvException ex = assertThrows(KvAuthenticationException.class, () -> client(server).build());
            assertEquals(KvError.AUTHENTICATION_FAILED, ex.error());
            assertEquals(KvError.AUTHENTICATION_FAILED,
                assertThrows(KvAuthenticationException.class, () -> client(server).secret("wrong").build()).error());
            // Failing the handshake and going to the data port directly does not help: refused and disconnected.
            assertEquals(Status.UNAUTHENTICATED, putWithoutHandshake(server, bytes("k"), bytes("stolen")));
            assertEquals(0, server.counters().get(ServerCounter.PUTS));
            final long lanes;
            try (KvClient client = client(server).secret("s3cret").build())
            {
                assertNull(client.get(bytes("k")), "the refused PUT was not applied");
                client.put(bytes("k"), bytes("v"));
                assertArrayEquals(bytes("v"), client.get(bytes("k")));
                lanes = client.diagnostics().counter(ClientCounter.LANES_OPENED);
            }
            assertEquals(1 + lanes, server.counters().get(ServerCounter.ATTACHES), "the client's connection and lanes");
            assertEquals(1, server.counters().get(ServerCounter.ATTACH_REFUSALS));
        }
    }

    /**
     * A PUT sent straight to the node's data port over the bare transport, without a handshake or ATTACH. Returns
     * the status the node answers, after checking that the node then closed the connection.
     */
    private static Status putWithoutHandshake(final KvServer server, final byte[] key, final byte[] value)
        throws Exception
    {
        final BlockingQueue<Status> answers = new LinkedBlockingQueue<>();
        try (Transport transport = TransportSelector.fromClassPath().select("tcp").provider()
            .open(TransportConfig.defaults()))
        {
            final Worker worker = transport.createWorker("intruder");
            final AgentRunner runner = new AgentRunner(new SleepingMillisIdleStrategy(1), Throwable::printStackTrace,
                null, worker);
            AgentRunner.startOnThread(runner);
            try (runner)
            {
                final Endpoint endpoint = worker.connect(server.dataAddress(), new EndpointHandler()
                {
                    @Override
                    public void onMessage(final Endpoint e, final DirectBuffer b, final int o, final int l)
                    {
                        answers.add(new ResponseFlyweight().wrap(b, o, l).validate().status());
                    }
                }).get(20, TimeUnit.SECONDS);
                final UnsafeBuffer message = new UnsafeBuffer(new byte[256]);
                final PutRequestFlyweight put = new PutRequestFlyweight();
                put.wrap(message, 0, message.capacity()).header(MessageType.PUT_REQUEST, 1);
                put.keyAndValue(key, value);
                assertTrue(endpoint.send(message, 0, put.encodedLength(), null) >= 0);
                final Status status = answers.poll(20, TimeUnit.SECONDS);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
                while (endpoint.isConnected() && System.nanoTime() < deadline)
                {
                    Thread.sleep(10);
                }
                assertFalse(endpoint.isConnected(), "the node closes a data connection that did not attach");
                return status;
            }
        }
    }

    @Test
    void shouldNeverReturnTornOrForeignValueUnderConcurrentWriters() throws Exception
    {
        final int keys = 16;
        try (KvServer server = start(Map.of("pool.reclaimGraceMs", "20"));
             KvClient client = client(server).maxInFlight(32).build())
        {
            for (int k = 0; k < keys; k++)
            {
                client.put(bytes("key-" + k), valueFor(k, 0, 100));
            }
            final AtomicBoolean running = new AtomicBoolean(true);
            final List<Throwable> errors = new CopyOnWriteArrayList<>();
            final List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < 2; w++)
            {
                final int writer = w;
                threads.add(new Thread(() ->
                {
                    long version = 1;
                    while (running.get())
                    {
                        final int k = (int)((version * 7 + writer) % keys);
                        // Different lengths, so extents of different size classes are allocated and reused.
                        client.put(bytes("key-" + k), valueFor(k, version, 64 + (int)(version % 5) * 300));
                        version++;
                    }
                }, "writer-" + w));
            }
            final AtomicLongArray reads = new AtomicLongArray(2);
            for (int r = 0; r < 2; r++)
            {
                final int reader = r;
                threads.add(new Thread(() ->
                {
                    try
                    {
                        int k = reader;
                        while (running.get())
                        {
                            final byte[] value = client.get(bytes("key-" + k));
                            assertWhole(k, value);
                            reads.incrementAndGet(reader);
                            k = (k + 1) % keys;
                        }
                    }
                    catch (final Throwable ex)
                    {
                        errors.add(ex);
                    }
                }, "reader-" + r));
            }
            threads.forEach(Thread::start);
            // Until both readers read beside the writers and one-sided reads were served (counts that must move;
            // the deadline only bounds a hang): how many reads fit in a fixed time is the scheduler's business.
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(40);
            while ((reads.get(0) < 50 || reads.get(1) < 50 ||
                client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS) == 0) && errors.isEmpty() &&
                System.nanoTime() - deadline < 0)
            {
                Thread.sleep(10);
            }
            running.set(false);
            for (final Thread t : threads)
            {
                t.join(TimeUnit.SECONDS.toMillis(10));
            }
            assertTrue(errors.isEmpty(), () -> "readers saw: " + errors);
            assertTrue(reads.get(0) >= 50 && reads.get(1) >= 50, "readers really read: " + reads);
            assertTrue(client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS) > 0);
        }
    }

    @Test
    void shouldReconnectAfterNodeRestartAndStillHaveTheData() throws Exception
    {
        final Map<String, String> fixed = InProcessNode.fixedControlPort();
        final KvClient client;
        try (KvServer server = start(fixed))
        {
            client = client(server).requestTimeout(Duration.ofSeconds(3)).build();
            client.put(bytes("durable"), bytes("yes"));
        }
        try (client)
        {
            final KvException down = assertThrows(KvException.class, () -> client.get(bytes("durable")));
            assertTrue(down.error() == KvError.CONNECTION_FAILED || down.error() == KvError.TIMED_OUT,
                down.error() + ": " + down.getMessage());
            try (KvServer restarted = start(fixed))
            {
                assertArrayEquals(bytes("yes"), client.get(bytes("durable")), "reconnected, new pool facts");
                client.put(bytes("after"), bytes("restart"));
                assertArrayEquals(bytes("restart"), client.get(bytes("after")));
                assertEquals(1, restarted.counters().get(ServerCounter.PUTS), "the PUT reached the new node");
            }
        }
    }

    /** A value that names its key and version and is filled with one byte derived from both. */
    private static byte[] valueFor(final int key, final long version, final int length)
    {
        final byte[] value = new byte[length];
        Arrays.fill(value, (byte)(key * 31 + version));
        value[0] = (byte)key;
        return value;
    }

    private static void assertWhole(final int key, final byte[] value)
    {
        if (value == null)
        {
            throw new AssertionError("key-" + key + " vanished");
        }
        if (value[0] != (byte)key)
        {
            throw new AssertionError("key-" + key + " returned key " + value[0] + "'s value");
        }
        for (int i = 2; i < value.length; i++)
        {
            if (value[i] != value[1])
            {
                throw new AssertionError("torn value for key-" + key + " at byte " + i);
            }
        }
    }
}

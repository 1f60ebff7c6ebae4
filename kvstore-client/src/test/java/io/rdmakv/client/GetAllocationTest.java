package io.rdmakv.client;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.select.TransportSelector;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * On the caller's thread a one-sided GET allocates the returned value and nothing else of its own: hashing, the
 * request slot, the read batch and the wait are allocation-free. What the transport itself allocates per posted read
 * is measured first, with bare reads on an endpoint of the same transport, and allowed for (the caller posts the
 * batch of three reads, two buckets and the header; the extent read is posted by the progress thread).
 */
class GetAllocationTest
{
    private static final int VALUE_LENGTH = 100;
    /** A byte[100]: 16 B header + 100 B, aligned to 8. */
    private static final int VALUE_ARRAY_BYTES = 120;
    private static final int ROUNDS = 500;

    private final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean)ManagementFactory.getThreadMXBean();

    @Test
    @Timeout(60)
    void shouldAllocateOnlyTheValueBeyondWhatTheTransportAllocates() throws Exception
    {
        assumeTrue(threads.isThreadAllocatedMemorySupported(), "per-thread allocation counter not supported here");
        threads.setThreadAllocatedMemoryEnabled(true);
        try (LaidOutPoolNode node = new LaidOutPoolNode())
        {
            final String value = "v".repeat(VALUE_LENGTH);
            node.put("hot", value);
            final long perRead = transportBytesPerRead(node);
            final byte[] key = OneSidedGetProtocolTest.bytes("hot");
            try (KvClient client = node.client().build())
            {
                for (int i = 0; i < ROUNDS; i++)
                {
                    client.get(key); // warm up: JIT, thread locals
                }
                final long before = allocated();
                for (int i = 0; i < ROUNDS; i++)
                {
                    client.get(key);
                }
                final long perGet = (allocated() - before) / ROUNDS;
                assertArrayEquals(OneSidedGetProtocolTest.bytes(value), client.get(key));
                final long budget = VALUE_ARRAY_BYTES + 3 * perRead + 32;
                System.out.printf("per GET %d B, transport per read %d B, budget %d B%n", perGet, perRead, budget);
                assertTrue(perGet <= budget, "a GET allocated " + perGet + " B on the caller's thread; the value is " +
                    VALUE_ARRAY_BYTES + " B and the transport allocates " + perRead + " B per read (budget " + budget +
                    " B)");
            }
        }
    }

    /** Bytes the transport allocates on the posting thread for one read, measured with bare reads. */
    private long transportBytesPerRead(final LaidOutPoolNode node) throws Exception
    {
        final Transport transport = TransportSelector.fromClassPath().select("tcp").provider()
            .open(TransportConfig.defaults());
        try (transport)
        {
            final Worker worker = transport.createWorker("baseline");
            final AgentRunner runner = new AgentRunner(new SleepingMillisIdleStrategy(0), Throwable::printStackTrace,
                null, worker);
            AgentRunner.startOnThread(runner);
            try (runner)
            {
                final Endpoint endpoint = worker.connect(node.dataAddress(), new EndpointHandler()
                {
                    @Override
                    public void onMessage(final Endpoint e, final org.agrona.DirectBuffer b, final int o, final int l)
                    {
                    }
                }).get(5, TimeUnit.SECONDS);
                final UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
                final AtomicInteger done = new AtomicInteger();
                final CompletionHandler handler = (status, id) -> done.incrementAndGet();
                for (int i = 0; i < ROUNDS; i++)
                {
                    readAndWait(endpoint, node, destination, handler, done);
                }
                final long before = allocated();
                for (int i = 0; i < ROUNDS; i++)
                {
                    readAndWait(endpoint, node, destination, handler, done);
                }
                return (allocated() - before) / ROUNDS;
            }
        }
    }

    private static void readAndWait(final Endpoint endpoint, final LaidOutPoolNode node, final UnsafeBuffer destination,
        final CompletionHandler handler, final AtomicInteger done)
    {
        final int target = done.get() + 1;
        while (endpoint.read(node.poolAddress(), node.remoteKey(), 64, destination, 0, handler) < 0)
        {
            Thread.onSpinWait();
        }
        while (done.get() < target)
        {
            Thread.yield();
        }
    }

    private long allocated()
    {
        return threads.getThreadAllocatedBytes(Thread.currentThread().getId());
    }
}

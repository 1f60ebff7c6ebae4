package io.rdmakv.transport.conformance;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code onDisconnected} is delivered exactly once for every way an endpoint ends: (a) a local close (by either side,
 * racing closes, operations in flight), (b) peer loss (the peer's endpoint or worker closes, the peer's process is
 * killed) and (c) worker close (the connecting or the accepting worker, after a close of the endpoint or with
 * operations in flight). Each test waits on a latch for the first delivery, then makes the sides' progress run a whole
 * cycle (or closes the worker, after which nothing more is delivered) before it counts: a second delivery would show.
 */
public abstract class AbstractDisconnectConformanceTest extends TransportConformanceSupport
{
    private static final int IN_FLIGHT = 64;
    private static final int MESSAGE = 4096;

    // ---------------------------------------------------------------- (a) local close

    @Test
    @Timeout(60)
    void shouldDeliverOnceOnBothSidesWhenTheAcceptingSideCloses() throws Exception
    {
        final Connection c = connect();
        c.serverEndpoint().close();
        assertDeliveredOnce(c.server(), "the closing side");
        assertEquals(TransportStatus.CLOSED, c.server().handler.disconnectStatus.get());
        assertDeliveredOnce(c.client(), "the peer");
        assertTrue(c.serverEndpoint().send(message(), 0, 8, null) < 0, "a closed endpoint refuses sends");
    }

    @Test
    @Timeout(60)
    void shouldDeliverOnceWhenClosesRace() throws Exception
    {
        final Connection c = connect();
        final int threads = 4;
        final CountDownLatch ready = new CountDownLatch(threads);
        final CountDownLatch go = new CountDownLatch(1);
        final List<Thread> closers = new ArrayList<>();
        for (int i = 0; i < threads; i++)
        {
            final Thread t = new Thread(() ->
            {
                ready.countDown();
                try
                {
                    go.await();
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
                c.clientEndpoint().close();
            }, "closer-" + i);
            t.start();
            closers.add(t);
        }
        ready.await();
        go.countDown();
        for (final Thread t : closers)
        {
            t.join();
        }
        assertDeliveredOnce(c.client(), "the closing side, closed by " + threads + " threads at once");
        assertEquals(TransportStatus.CLOSED, c.client().handler.disconnectStatus.get());
        assertDeliveredOnce(c.server(), "the peer");
    }

    @Test
    @Timeout(60)
    void shouldDeliverOnceAndCompleteEveryOperationWhenClosedWithOperationsInFlight() throws Exception
    {
        final Connection c = connect();
        final Completions completions = new Completions();
        final int accepted = sendMany(c.clientEndpoint(), completions);
        c.clientEndpoint().close();
        awaitDisconnect(c.client());
        completions.await(accepted);
        c.client().awaitFullCycle();
        assertOnce(c.client(), "the closing side");
        assertEquals(TransportStatus.CLOSED, c.client().handler.disconnectStatus.get());
        assertEquals(accepted, completions.total.get(), "every accepted operation completes once");
        assertDeliveredOnce(c.server(), "the peer");
    }

    // ---------------------------------------------------------------- (b) peer loss

    @Test
    @Timeout(60)
    void shouldDeliverOnceWhenThePeersWorkerCloses() throws Exception
    {
        final Connection c = connect();
        c.server().progress.close(); // stops the server's progress and closes its worker
        assertDeliveredOnce(c.client(), "the side whose peer went");
        assertNotEquals(TransportStatus.OK, c.client().handler.disconnectStatus.get());
        assertTrue(c.clientEndpoint().send(message(), 0, 8, null) < 0, "an endpoint whose peer went refuses sends");
    }

    @Test
    @Timeout(120)
    void shouldDeliverOnceWhenThePeersProcessIsKilled() throws Exception
    {
        assumeAvailable();
        final Process child = startChild();
        try
        {
            final int port = awaitListening(child);
            final Peer client = peer("client", config());
            final Endpoint ep = client.worker.connect(new InetSocketAddress("127.0.0.1", port), client.handler)
                .get(config().connectTimeout().plusSeconds(30).toMillis(), TimeUnit.MILLISECONDS);
            assertTrue(ep.isConnected());
            child.destroyForcibly(); // SIGKILL: nothing of the peer says goodbye
            assertTrue(child.waitFor(30, TimeUnit.SECONDS), "the child exits");
            assertDeliveredOnce(client, "the side whose peer's process was killed");
            assertNotEquals(TransportStatus.OK, client.handler.disconnectStatus.get());
            assertTrue(ep.send(message(), 0, 8, null) < 0, "an endpoint whose peer died refuses sends");
        }
        finally
        {
            child.destroyForcibly();
        }
    }

    // ---------------------------------------------------------------- (c) worker close

    @Test
    @Timeout(60)
    void shouldDeliverOnceOnBothSidesWhenTheAcceptingWorkerCloses() throws Exception
    {
        final Connection c = connect();
        c.server().progress.close();
        assertEquals(0, c.server().handler.disconnected.getCount(),
            "onDisconnected was delivered by the time the accepting worker's close returned");
        assertOnce(c.server(), "the closed worker's side");
        assertEquals(TransportStatus.CLOSED, c.server().handler.disconnectStatus.get());
        assertDeliveredOnce(c.client(), "the peer");
        assertOnce(c.server(), "the closed worker's side, after the peer saw it");
    }

    @Test
    @Timeout(60)
    void shouldDeliverOnceWhenTheWorkerClosesRightAfterTheEndpoint() throws Exception
    {
        final Connection c = connect();
        c.clientEndpoint().close();
        c.client().progress.close(); // whatever the endpoint's close queued meets the worker's close
        assertEquals(0, c.client().handler.disconnected.getCount(),
            "onDisconnected was delivered by the time the worker's close returned");
        assertOnce(c.client(), "endpoint closed, then its worker");
        assertEquals(TransportStatus.CLOSED, c.client().handler.disconnectStatus.get());
        assertDeliveredOnce(c.server(), "the peer");
    }

    @Test
    @Timeout(60)
    void shouldDeliverOnceAndCompleteEveryOperationWhenTheWorkerClosesWithOperationsInFlight() throws Exception
    {
        final Connection c = connect();
        final Completions completions = new Completions();
        final int accepted = sendMany(c.clientEndpoint(), completions);
        c.client().progress.close();
        assertEquals(0, c.client().handler.disconnected.getCount(),
            "onDisconnected was delivered by the time the worker's close returned");
        completions.await(accepted);
        assertOnce(c.client(), "the closed worker's side");
        assertEquals(TransportStatus.CLOSED, c.client().handler.disconnectStatus.get());
        assertEquals(accepted, completions.total.get(), "every accepted operation completes once");
        assertDeliveredOnce(c.server(), "the peer");
    }

    // ---------------------------------------------------------------- helpers

    private static UnsafeBuffer message()
    {
        return new UnsafeBuffer(ByteBuffer.allocateDirect(MESSAGE));
    }

    /** Sends with a handler until {@link #IN_FLIGHT} were accepted or one was refused; returns how many were. */
    private static int sendMany(final Endpoint ep, final Completions completions)
    {
        final UnsafeBuffer buffer = message();
        int accepted = 0;
        for (int i = 0; i < IN_FLIGHT; i++)
        {
            if (ep.send(buffer, 0, MESSAGE, completions) < 0)
            {
                break;
            }
            accepted++;
        }
        assertTrue(accepted > 0, "the connected endpoint accepted no send");
        return accepted;
    }

    /** Waits for {@code peer}'s onDisconnected, lets its progress run a whole cycle, then counts: exactly one. */
    private static void assertDeliveredOnce(final Peer peer, final String side) throws InterruptedException
    {
        awaitDisconnect(peer);
        peer.awaitFullCycle();
        assertOnce(peer, side);
    }

    private static void awaitDisconnect(final Peer peer) throws InterruptedException
    {
        assertTrue(peer.handler.disconnected.await(30, TimeUnit.SECONDS), "onDisconnected must be delivered");
    }

    private static void assertOnce(final Peer peer, final String side)
    {
        assertEquals(1, peer.handler.disconnects.get(), "onDisconnected exactly once on " + side);
    }

    private Process startChild() throws Exception
    {
        final TransportConfig config = config();
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        for (final String arg : ManagementFactory.getRuntimeMXBean().getInputArguments())
        {
            if (arg.startsWith("--add-opens") || arg.startsWith("--add-exports") ||
                arg.startsWith("--enable-native-access") || arg.startsWith("-Djava.library.path"))
            {
                command.add(arg);
            }
        }
        // The project's own settings (a device, a forced binding), however the runner set them.
        for (final String name : System.getProperties().stringPropertyNames())
        {
            if (name.startsWith("rdmakv."))
            {
                command.add("-D" + name + "=" + System.getProperty(name));
            }
        }
        command.addAll(List.of("--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED",
            "-cp", childClassPath(), ConformancePeerChild.class.getName(),
            provider().getClass().getName(), Long.toString(config.connectTimeout().toMillis()),
            Long.toString(config.operationTimeout().toMillis())));
        for (final Map.Entry<String, String> e : config.properties().entrySet())
        {
            command.add(e.getKey() + "=" + e.getValue());
        }
        return new ProcessBuilder(command).redirectErrorStream(true).start();
    }

    /**
     * The JVM's class path and the entries of every URL class loader above this class: JUnit's console launcher
     * (the SoftRoCE guest's runner) loads the tests from its {@code --class-path} in a loader of its own, so
     * {@code java.class.path} alone lacks them (the child failed there with ClassNotFoundException).
     */
    private static String childClassPath() throws Exception
    {
        final Set<String> entries = new LinkedHashSet<>();
        for (ClassLoader l = AbstractDisconnectConformanceTest.class.getClassLoader(); l != null; l = l.getParent())
        {
            if (l instanceof URLClassLoader urls)
            {
                for (final URL url : urls.getURLs())
                {
                    entries.add(Path.of(url.toURI()).toString());
                }
            }
        }
        entries.addAll(List.of(System.getProperty("java.class.path").split(File.pathSeparator)));
        return String.join(File.pathSeparator, entries);
    }

    private static int awaitListening(final Process child) throws Exception
    {
        final BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
            StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null)
        {
            if (line.startsWith("LISTENING "))
            {
                final Thread drain = new Thread(() -> out.lines().forEach(l -> System.out.println("child: " + l)));
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(line.substring("LISTENING ".length()));
            }
            System.out.println("child: " + line);
        }
        throw new AssertionError("the child exited before it listened (exit " + child.waitFor() + ")");
    }

    /** Counts completions (on the progress thread or a closing one); each operation must complete exactly once. */
    private static final class Completions implements CompletionHandler
    {
        final AtomicInteger total = new AtomicInteger();
        private final Object lock = new Object();

        @Override
        public void onComplete(final TransportStatus status, final long requestId)
        {
            total.incrementAndGet();
            synchronized (lock)
            {
                lock.notifyAll();
            }
        }

        void await(final int expected) throws InterruptedException
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            synchronized (lock)
            {
                while (total.get() < expected)
                {
                    final long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                    assertTrue(left > 0, "every accepted operation completes: " + total.get() + " of " + expected);
                    lock.wait(left);
                }
            }
        }
    }
}

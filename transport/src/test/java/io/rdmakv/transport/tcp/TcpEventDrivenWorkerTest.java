package io.rdmakv.transport.tcp;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.WorkerProgress;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import io.rdmakv.transport.progress.Progress;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The event-driven progress of a TCP worker: who runs callbacks and duty cycles, and the rules of switching. */
class TcpEventDrivenWorkerTest extends TransportConformanceSupport
{
    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }

    @Test
    @Timeout(20)
    void shouldRunCallbacksAndDutyOnOneThreadTheEventLoop() throws Exception
    {
        final Transport transport = open(config());
        final Worker serverWorker = transport.createWorker("server");
        final Worker clientWorker = transport.createWorker("client");
        assertEquals(ProgressModel.EVENT_DRIVEN, serverWorker.progressModel());

        final CountingDuty serverDuty = new CountingDuty();
        final WorkerProgress server = closeLater(Progress.start(serverWorker, serverDuty, "s",
            Throwable::printStackTrace));
        final WorkerProgress client = closeLater(Progress.start(clientWorker, new CountingDuty(), "c",
            Throwable::printStackTrace));

        final AtomicReference<Thread> messageThread = new AtomicReference<>();
        final AtomicReference<Boolean> onProgressThread = new AtomicReference<>();
        final CountDownLatch echoed = new CountDownLatch(1);
        final Listener listener = closeLater(serverWorker.listen(LOOPBACK, (ep, buffer, offset, length) ->
        {
            messageThread.set(Thread.currentThread());
            onProgressThread.set(server.isProgressThread());
            ep.send(buffer, offset, length, null); // answered inline, on the event loop
        }));
        final EndpointHandler clientHandler = (ep, buffer, offset, length) -> echoed.countDown();
        final Endpoint ep = clientWorker.connect(new InetSocketAddress("127.0.0.1",
            listener.localAddress().getPort()), clientHandler).get(10, TimeUnit.SECONDS);
        final UnsafeBuffer message = new UnsafeBuffer(new byte[32]);
        assertTrue(ep.send(message, 0, 32, null) >= 0);
        assertTrue(echoed.await(10, TimeUnit.SECONDS), "the echo must arrive");
        assertTrue(onProgressThread.get(), "callbacks run on the progress thread");
        assertTrue(messageThread.get().getName().startsWith("rdmakv-tcp-io"),
            "the progress thread is the event loop: " + messageThread.get().getName());

        // The duty runs on the timer and after a signal, on that same thread.
        serverDuty.awaitCycles(3);
        server.signal();
        serverDuty.awaitCycles(serverDuty.cycles.get() + 1);
        assertEquals(messageThread.get(), serverDuty.thread.get());
        assertTrue(!server.isProgressThread(), "the test thread is not the progress thread");
        client.close();
        assertTrue(!ep.isConnected(), "closing the progress closes the worker and its endpoints");
    }

    @Test
    @Timeout(20)
    void shouldRefuseToBeDrivenAfterListeningAndRefusePollingWhenDriven()
    {
        final Transport transport = open(config());
        final Worker listening = transport.createWorker("listening");
        closeLater(listening.listen(LOOPBACK, (ep, b, o, l) -> { }));
        assertThrows(IllegalStateException.class,
            () -> listening.driveProgress(new CountingDuty(), Duration.ofMillis(1), Throwable::printStackTrace));

        final Worker driven = transport.createWorker("driven");
        closeLater(driven.driveProgress(new CountingDuty(), Duration.ofMillis(1), Throwable::printStackTrace));
        assertThrows(IllegalStateException.class, driven::doWork);
        assertThrows(IllegalStateException.class,
            () -> driven.driveProgress(new CountingDuty(), Duration.ofMillis(1), Throwable::printStackTrace));
    }

    @Test
    @Timeout(20)
    void shouldCloseTheWorkerAndTheDutyOnClose() throws Exception
    {
        final Transport transport = open(config());
        final Worker worker = transport.createWorker("w");
        final CountingDuty duty = new CountingDuty();
        final WorkerProgress progress = Progress.start(worker, duty, "w", Throwable::printStackTrace);
        duty.awaitCycles(1);
        assertEquals(-1, progress.tryProgress(), "callers cannot drive an event-driven worker: its I/O thread does");
        progress.close();
        assertEquals(1, duty.closes.get());
        assertThrows(RuntimeException.class, () -> worker.listen(LOOPBACK, (ep, b, o, l) -> { }),
            "a closed worker must refuse to listen");
        final int cycles = duty.cycles.get();
        Thread.sleep(20);
        assertEquals(cycles, duty.cycles.get(), "no duty cycle after close");
        progress.close(); // idempotent
        assertEquals(1, duty.closes.get());
    }

    /** Counts duty cycles and remembers the thread that ran them. */
    private static final class CountingDuty implements Agent
    {
        final AtomicInteger cycles = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();
        final AtomicReference<Thread> thread = new AtomicReference<>();

        @Override
        public int doWork()
        {
            thread.set(Thread.currentThread());
            cycles.incrementAndGet();
            return 0;
        }

        @Override
        public void onClose()
        {
            closes.incrementAndGet();
        }

        @Override
        public String roleName()
        {
            return "counting-duty";
        }

        void awaitCycles(final int n) throws InterruptedException
        {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (cycles.get() < n)
            {
                assertTrue(System.nanoTime() < deadline, "duty cycles stalled at " + cycles.get());
                Thread.sleep(1);
            }
        }
    }
}

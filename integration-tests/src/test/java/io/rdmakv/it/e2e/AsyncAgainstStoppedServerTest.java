package io.rdmakv.it.e2e;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvBackPressureException;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvException;
import io.rdmakv.client.KvTimeoutException;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.it.support.faults.ProcessFaults;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The async API never blocks its caller, against a real server process stopped with SIGSTOP (its sockets stay open,
 * nothing answers): every call returns at once, queued (up to maxInFlight + maxQueuedRequests) or failed with
 * back-pressure, and everything accepted ends within the request timeout or, once the server continues, with its
 * answer. GETs go by RPC so that every request needs the stopped process (a NIC would serve one-sided reads).
 */
@ExtendWith(ProcessJanitor.class)
class AsyncAgainstStoppedServerTest
{
    private static final int IN_FLIGHT = 64;
    private static final int QUEUED = KvClientBuilder.DEFAULT_MAX_QUEUED_REQUESTS;

    @TempDir
    Path tmp;

    @Test
    @Timeout(120)
    void shouldReturnFromEveryAsyncCallWhileTheServerIsStoppedAndAnswerThemAllWhenItContinues() throws Exception
    {
        final int calls = 20_000;
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("stopped").start();
        try (KvClient client = client(server, Duration.ofSeconds(60)))
        {
            client.put("warm", "up");
            final List<CompletableFuture<?>> futures = new ArrayList<>(calls);
            int refusedAtOnce = 0;
            final long elapsedNanos;
            try (ProcessFaults.Paused paused = ProcessFaults.pause(server.pid()))
            {
                final long start = System.nanoTime();
                for (int i = 0; i < calls; i++)
                {
                    final CompletableFuture<?> f = i % 2 == 0 ? client.putAsync("k" + i, "v" + i) :
                        client.getAsync("k" + (i - 1));
                    futures.add(f);
                    if (f.isDone())
                    {
                        refusedAtOnce++;
                        assertInstanceOf(KvBackPressureException.class, failure(f));
                    }
                }
                elapsedNanos = System.nanoTime() - start;
                // All calls have returned while the process was stopped: nothing was answered, nothing timed out.
                assertEquals(calls - IN_FLIGHT - QUEUED, refusedAtOnce);
                assertEquals(QUEUED, client.diagnostics().queuedRequests());
                assertEquals(0, client.diagnostics().counter(ClientCounter.TIMEOUTS));
                for (int i = 0; i < IN_FLIGHT + QUEUED; i++)
                {
                    assertFalse(futures.get(i).isDone(), "call " + i + " waits in flight or in the queue");
                }
                final CompletableFuture<List<byte[]>> multi = client.multiGetAsync("a", "b");
                assertTrue(multi.isDone(), "multiGetAsync with a full queue fails at once");
                assertInstanceOf(KvBackPressureException.class, failure(multi));
            }
            System.out.printf("%d async calls against a stopped server returned in %.1f ms on the calling thread " +
                "(%d accepted, %d refused at once)%n", calls, elapsedNanos / 1e6, IN_FLIGHT + QUEUED, refusedAtOnce);
            for (int i = 0; i < IN_FLIGHT + QUEUED; i++)
            {
                futures.get(i).get(60, TimeUnit.SECONDS); // every accepted request is answered once it continues
            }
            assertArrayEquals(bytes("v" + (IN_FLIGHT + QUEUED - 2)), client.get("k" + (IN_FLIGHT + QUEUED - 2)));
            assertEquals(calls - IN_FLIGHT - QUEUED + 1, client.diagnostics().counter(ClientCounter.FAILURES),
                "the refused calls and the multiGetAsync, nothing else");
        }
    }

    @Test
    @Timeout(120)
    void shouldFailEveryAcceptedAsyncCallWithinItsTimeoutWhileTheServerIsStopped() throws Exception
    {
        final int calls = 5_000;
        final ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("stopped").start();
        try (KvClient client = client(server, Duration.ofSeconds(2)))
        {
            client.put("warm", "up");
            try (ProcessFaults.Paused paused = ProcessFaults.pause(server.pid()))
            {
                final List<CompletableFuture<?>> futures = new ArrayList<>(calls);
                for (int i = 0; i < calls; i++)
                {
                    futures.add(i % 2 == 0 ? client.putAsync("k" + i, "v") : client.getAsync("k" + i));
                }
                int timedOut = 0;
                int refused = 0;
                for (final CompletableFuture<?> f : futures)
                {
                    final KvException ex = failure(f);
                    timedOut += ex instanceof KvTimeoutException ? 1 : 0;
                    refused += ex instanceof KvBackPressureException ? 1 : 0;
                }
                // The first IN_FLIGHT + QUEUED calls always find room; how many more do depends on whether the loop
                // outlasted the first timeouts (the exact split is the first test's, with a timeout beyond any stall).
                assertTrue(timedOut >= IN_FLIGHT + QUEUED, "every accepted call timed out: " + timedOut);
                assertEquals(calls, timedOut + refused, "each call timed out or was refused at once");
                assertInstanceOf(KvTimeoutException.class, failure(client.multiGetAsync("a", "b")));
                assertThrows(KvTimeoutException.class, () -> client.multiGet("a", "b"));
            }
            client.put("after", "continued");
            assertArrayEquals(bytes("continued"), client.get("after"), "the client works once the server continues");
        }
    }

    private static KvClient client(final ServerProcess server, final Duration requestTimeout)
    {
        return KvClient.builder().server(server.seed()).transport(TestTransport.name()).getMode(GetMode.RPC)
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(requestTimeout).maxInFlight(IN_FLIGHT)
            .build();
    }

    private static KvException failure(final CompletableFuture<?> future)
    {
        final ExecutionException ex = assertThrows(ExecutionException.class, () -> future.get(60, TimeUnit.SECONDS));
        return assertInstanceOf(KvException.class, ex.getCause());
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

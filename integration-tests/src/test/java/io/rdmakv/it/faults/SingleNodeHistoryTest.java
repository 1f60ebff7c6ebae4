package io.rdmakv.it.faults;

import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.it.support.faults.ProcessFaults;
import io.rdmakv.it.support.history.HistoryRecorder;
import io.rdmakv.it.support.history.LinearizabilityChecker;
import io.rdmakv.it.support.history.Operation;
import io.rdmakv.it.support.history.RegisterWorkload;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The fast subset of the fault tests (default suite): one real server process, clients doing one-sided GETs and PUTs
 * on a few keys, every call recorded, then kill -9 and a restart in the middle of the stream, and a SIGSTOP longer than
 * the clients' timeout; the whole history must be linearizable per key (no lost acknowledged write, no stale read).
 */
@Tag("faults")
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 600, unit = TimeUnit.SECONDS)
class SingleNodeHistoryTest
{
    private static final int WORKERS = 4;
    private static final int KEYS = 6;

    @Test
    void shouldStayLinearizableAcrossKillNineRestartAndAPause(@TempDir final Path dir)
    {
        final int[] ports = FreePorts.take(2);
        final HistoryRecorder recorder = new HistoryRecorder();
        try (ServerProcess server = ServerProcess.builder(dir.resolve("data")).name("history")
            .controlPort(ports[0]).dataPort(ports[1]).start())
        {
            final String seed = server.seed();
            final RegisterWorkload workload = new RegisterWorkload(recorder, () -> client(seed), WORKERS, KEYS, 0.5);
            try (workload)
            {
                assertTrue(workload.awaitOk(400, 120_000), "operations before the faults");

                ProcessFaults.kill9(server.pid());
                server.restart();
                assertTrue(workload.awaitOk(400, 180_000), "operations after kill -9 and restart");

                final long errorsBefore = workload.errorCount();
                try (ProcessFaults.Paused paused = ProcessFaults.pause(server.pid()))
                {
                    assertTrue(workload.awaitErrors(WORKERS, 60_000), "calls to a stopped server time out");
                }
                assertTrue(workload.errorCount() > errorsBefore);
                assertTrue(workload.awaitOk(400, 180_000), "operations after SIGCONT");
            }
            final List<Operation> history = recorder.history();
            final LinearizabilityChecker.Report report = new LinearizabilityChecker().check(history);
            System.out.println("[SingleNodeHistoryTest] " + report + "; one-sided GET hits " + workload.oneSidedHits() +
                ", calls that failed or timed out " + workload.errorCount());
            final Path kept = FailedHistoryKeeper.keepIfFailed(report, history, "single node kill -9, restart, pause",
                FailedHistoryKeeper.nodeLogs(server.stdoutLog(), server.dataDir()), FailedHistoryKeeper.defaultRoot());
            assertTrue(report.linearizable(), report + "\nthe history and the node's logs are kept in " + kept);
            assertTrue(workload.oneSidedHits() > 0, "GETs were answered one-sided");
        }
    }

    private static KvClient client(final String seed)
    {
        return KvClient.builder().server(seed).transport(TestTransport.name()).getMode(GetMode.ONE_SIDED)
            .connectTimeout(Duration.ofSeconds(5)).requestTimeout(Duration.ofSeconds(2)).build();
    }
}

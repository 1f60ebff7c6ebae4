package io.rdmakv.it.faults;

import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.faults.NetworkLab;
import io.rdmakv.it.support.faults.ProcessFaults;
import io.rdmakv.it.support.history.HistoryRecorder;
import io.rdmakv.it.support.history.LinearizabilityChecker;
import io.rdmakv.it.support.history.RegisterWorkload;
import org.junit.jupiter.api.BeforeEach;
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
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Faults against a replicated cluster of real processes (profile {@code -Pfaults}): clients doing one-sided GETs and
 * PUTs on a few keys while a node is killed, stopped past its lease, cut off from the voters, or runs a fast or slow
 * clock; every call is recorded and the history must be linearizable per key (invariant 7: no stale read; invariant
 * 8: no lost acknowledged write). Skipped, with the reason, on a build without cluster mode.
 */
@Tag("faults")
@Tag("cluster-faults")
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ClusterFaultsTest
{
    private static final long LEASE_MS = 2_000;
    private static final int WORKERS = 4;
    private static final int KEYS = 12;
    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    @TempDir
    Path dir;

    @BeforeEach
    void requireClusterMode()
    {
        final String reason = FaultCluster.unavailableReason();
        if (reason != null)
        {
            System.out.println("[ClusterFaultsTest] skipped: " + reason);
        }
        assumeTrue(reason == null, reason);
    }

    @Test
    void shouldStayLinearizableAcrossKillNineOfAPrimaryMidWriteStream()
    {
        try (FaultCluster cluster = FaultCluster.start(dir, 3, 1, LEASE_MS, null, null))
        {
            final HistoryRecorder recorder = new HistoryRecorder();
            final RegisterWorkload workload = workload(cluster, recorder);
            try (workload)
            {
                assertTrue(workload.awaitOk(300, 120_000), "operations before the kill");
                ProcessFaults.kill9(cluster.node(2).pid());
                assertTrue(workload.awaitOk(300, 180_000), "operations after the kill (failover)");
            }
            check("kill -9 of node 2", recorder, workload);
        }
    }

    @Test
    void shouldServeNoStaleReadWhileAPrimaryIsStoppedLongerThanItsLease() throws Exception
    {
        try (FaultCluster cluster = FaultCluster.start(dir, 3, 1, LEASE_MS, null, null))
        {
            final HistoryRecorder recorder = new HistoryRecorder();
            final RegisterWorkload workload = workload(cluster, recorder);
            try (workload)
            {
                assertTrue(workload.awaitOk(300, 120_000), "operations before the pause");
                try (ProcessFaults.Paused paused = ProcessFaults.pause(cluster.node(2).pid()))
                {
                    // The fault lasts three leases: its length is the injection, the checker judges the outcome.
                    Thread.sleep(3 * LEASE_MS);
                    assertTrue(workload.awaitOk(200, 180_000), "operations while node 2 is stopped (failover)");
                }
                assertTrue(workload.awaitOk(300, 180_000), "operations after node 2 resumed");
            }
            check("SIGSTOP of node 2 for 3 leases", recorder, workload);
        }
    }

    @Test
    void shouldStayLinearizableWhenANodeIsCutOffFromTheVoters() throws Exception
    {
        assumeNamespaces();
        try (NetworkLab lab = NetworkLab.create(3);
             FaultCluster cluster = FaultCluster.start(dir, 3, 1, LEASE_MS, lab, null))
        {
            final HistoryRecorder recorder = new HistoryRecorder();
            final RegisterWorkload workload = workload(cluster, recorder);
            try (workload)
            {
                assertTrue(workload.awaitOk(300, 120_000), "operations before the partition");
                // Node 2 keeps its clients but loses the other voters (and its backups).
                lab.partition(List.of(1), List.of(0, 2));
                Thread.sleep(3 * LEASE_MS);
                assertTrue(workload.awaitOk(200, 180_000), "operations during the partition");
                lab.heal();
                assertTrue(workload.awaitOk(300, 180_000), "operations after heal");
            }
            check("node 2 cut off from the voters", recorder, workload);
        }
    }

    @Test
    void shouldStayLinearizableAcrossAMinorityMajoritySplit() throws Exception
    {
        assumeNamespaces();
        try (NetworkLab lab = NetworkLab.create(3);
             FaultCluster cluster = FaultCluster.start(dir, 3, 1, LEASE_MS, lab, null))
        {
            final HistoryRecorder recorder = new HistoryRecorder();
            final RegisterWorkload workload = workload(cluster, recorder);
            try (workload)
            {
                assertTrue(workload.awaitOk(300, 120_000), "operations before the split");
                // Node 1 (the first voter, often the leader) alone against the majority {2, 3}.
                lab.partition(List.of(0), List.of(1, 2));
                Thread.sleep(3 * LEASE_MS);
                assertTrue(workload.awaitOk(200, 180_000), "operations during the split");
                lab.heal();
                assertTrue(workload.awaitOk(300, 180_000), "operations after heal");
            }
            check("minority {1} / majority {2, 3}", recorder, workload);
        }
    }

    @Test
    void shouldStayLinearizableWithOneClockFastAndOneSlow() throws Exception
    {
        // Within the drift bound of 1.1: node 2 runs 5% fast, node 3 5% slow (it believes its lease lasts longer).
        try (FaultCluster cluster = FaultCluster.start(dir, 3, 1, LEASE_MS, null, new double[] {1.0, 1.05, 0.95}))
        {
            final HistoryRecorder recorder = new HistoryRecorder();
            final RegisterWorkload workload = workload(cluster, recorder);
            try (workload)
            {
                assertTrue(workload.awaitOk(300, 120_000), "operations before the pause");
                try (ProcessFaults.Paused paused = ProcessFaults.pause(cluster.node(3).pid()))
                {
                    Thread.sleep(3 * LEASE_MS);
                    assertTrue(workload.awaitOk(200, 180_000), "operations while the slow node is stopped");
                }
                assertTrue(workload.awaitOk(300, 180_000), "operations after it resumed");
            }
            check("slow-clock node 3 stopped for 3 leases", recorder, workload);
        }
    }

    private static RegisterWorkload workload(final FaultCluster cluster, final HistoryRecorder recorder)
    {
        return new RegisterWorkload(recorder, () -> cluster.client(REQUEST_TIMEOUT), WORKERS, KEYS, 0.5);
    }

    private static void check(final String fault, final HistoryRecorder recorder, final RegisterWorkload workload)
    {
        final LinearizabilityChecker.Report report = new LinearizabilityChecker().check(recorder.history());
        System.out.println("[ClusterFaultsTest] " + fault + ": " + report + "; one-sided GET hits " +
            workload.oneSidedHits() + ", calls failed or timed out " + workload.errorCount());
        report.assertLinearizable();
    }

    private static void assumeNamespaces()
    {
        final String reason = NetworkLab.unavailableReason();
        if (reason != null)
        {
            System.out.println("[ClusterFaultsTest] partition test skipped: " + reason);
        }
        assumeTrue(reason == null, reason);
    }
}

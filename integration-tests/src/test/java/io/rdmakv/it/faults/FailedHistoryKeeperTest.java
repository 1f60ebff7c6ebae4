package io.rdmakv.it.faults;

import io.rdmakv.it.support.history.HistoryRecorder;
import io.rdmakv.it.support.history.LinearizabilityChecker;
import io.rdmakv.it.support.history.Operation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** What a failed check keeps, and that a linearizable one keeps nothing (no processes: files a node would leave). */
class FailedHistoryKeeperTest
{
    @TempDir
    Path tmp;

    @Test
    void shouldKeepTheHistoryAndEveryStartsLogsAndTheRocksDbLogWhenTheCheckFails() throws IOException
    {
        final Path itLogs = Files.createDirectories(tmp.resolve("it-logs"));
        final Path data = Files.createDirectories(tmp.resolve("test-dir/node-1/db"));
        for (final String name : List.of("fault-node-1-4-1.stdout.log", "fault-node-1-4-1.stderr.log",
            "fault-node-1-4-2.stdout.log", "fault-node-1-4-2.stderr.log", "fault-node-1-41-1.stdout.log"))
        {
            Files.writeString(itLogs.resolve(name), name + " line\n");
        }
        Files.writeString(data.resolve("LOG"), "rocksdb log\n");
        Files.writeString(data.resolve("000012.log"), "a WAL, not a log to keep\n");
        final List<Path> logs = FailedHistoryKeeper.nodeLogs(itLogs.resolve("fault-node-1-4-2.stdout.log"),
            tmp.resolve("test-dir/node-1"));
        assertEquals(5, logs.size(), logs.toString()); // node 1-4's two starts, both streams, and LOG; not 1-41's

        final List<Operation> lost = lostWrite();
        final LinearizabilityChecker.Report report = new LinearizabilityChecker().check(lost);
        assertFalse(report.linearizable());
        final Path root = tmp.resolve("target/failed-histories");
        final Path kept = FailedHistoryKeeper.keepIfFailed(report, lost, "kill -9 of node 2", logs, root);

        // Outside the test's directory, which goes away: the module's target/ in the real run.
        assertTrue(kept.startsWith(root) && kept.getFileName().toString().startsWith("kill-9-of-node-2-"), kept.toString());
        final List<String> history = Files.readAllLines(kept.resolve("history.txt"), StandardCharsets.UTF_8);
        assertEquals("# kill -9 of node 2", history.get(0));
        assertTrue(history.get(1).contains("non-linearizable"), history.get(1));
        assertEquals(lost.stream().map(Operation::toString).toList(), history.subList(history.size() - lost.size(),
            history.size()));
        try (var copies = Files.list(kept.resolve("logs")))
        {
            assertEquals(5, copies.count());
        }
        assertEquals("rocksdb log\n", Files.readString(kept.resolve("logs/04-LOG")));
        assertEquals("fault-node-1-4-1.stdout.log line\n", Files.readString(kept.resolve(
            "logs/01-fault-node-1-4-1.stdout.log")));
    }

    @Test
    void shouldKeepNothingForALinearizableHistory()
    {
        final HistoryRecorder r = new HistoryRecorder(new AtomicLong()::incrementAndGet);
        r.ok(r.invokePut(0, "k", "1"));
        r.okRead(r.invokeGet(1, "k"), "1");
        final LinearizabilityChecker.Report report = new LinearizabilityChecker().check(r.history());
        final Path root = tmp.resolve("target/failed-histories");
        assertNull(FailedHistoryKeeper.keepIfFailed(report, r.history(), "quiet", List.of(), root));
        assertFalse(Files.exists(root));
    }

    /** An acknowledged PUT that a later GET does not see. */
    private static List<Operation> lostWrite()
    {
        final HistoryRecorder r = new HistoryRecorder(new AtomicLong()::incrementAndGet);
        r.ok(r.invokePut(0, "k", "1"));
        r.okRead(r.invokeGet(1, "k"), null);
        return r.history();
    }
}

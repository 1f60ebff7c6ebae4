package io.rdmakv.it.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.cli.backup.BackupCommand;
import io.rdmakv.cli.backup.RestoreCommand;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.faults.ProcessFaults;
import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.server.backup.NodeConnection;
import io.rdmakv.transport.tls.TlsSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdmakv backup --cluster} / {@code restore --cluster} with real node processes: a 3-node cluster backed up
 * while a writer keeps overwriting its keys (the tool is held after its first range until the last range failed over
 * to its backup and the writer acknowledged more writes, so writes surely land while the backup runs and the tool
 * must follow the map), restored into a 2-node and a 4-node cluster. Every key holds
 * the value acknowledged before the backup began or a newer one the writer wrote; the 4-node restore is cut off by
 * stopping every target node after its first range (PUTs time out) and continues from its progress marker; a
 * damaged range file writes nothing, nor does a node's backup restored through one node of a cluster.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ClusterBackupRestoreTest
{
    private static final int KEYS = 3_000;
    private static final long LEASE_MS = 30_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;

    private final AtomicLongArray ackedVersion = new AtomicLongArray(KEYS);
    private final AtomicLongArray startedVersion = new AtomicLongArray(KEYS);
    private final AtomicLong acked = new AtomicLong();

    private static byte[] key(final int i)
    {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int i, final long version)
    {
        return (i + "|" + version + "|" + "v".repeat(i % 200)).getBytes(StandardCharsets.UTF_8);
    }

    private static long version(final int i, final byte[] value)
    {
        final String[] parts = new String(value, StandardCharsets.UTF_8).split("\\|", -1);
        assertEquals(Integer.toString(i), parts[0], "key-" + i + " holds another key's value");
        return Long.parseLong(parts[1]);
    }

    private static KvClient client(final LocalCluster cluster, final Duration timeout)
    {
        return KvClient.builder().servers(cluster.seeds()).transport("tcp").getMode(GetMode.RPC)
            .connectTimeout(Duration.ofSeconds(30)).requestTimeout(timeout).build();
    }

    @Test
    void shouldBackUpAClusterUnderWritesAndRestoreItIntoClustersOfTwoAndFourNodes() throws Exception
    {
        final Path backup = dir.resolve("backup");
        final long[] ackedAtStart = new long[KEYS];
        final long[] startedAtEnd = new long[KEYS];
        try (LocalCluster source = LocalCluster.start(dir.resolve("source"), 3, 1, LEASE_MS);
             KvClient client = client(source, Duration.ofSeconds(30)))
        {
            final List<CompletableFuture<Void>> preload = new ArrayList<>();
            for (int i = 0; i < KEYS; i++)
            {
                preload.add(client.putAsync(key(i), value(i, 0)));
            }
            preload.forEach(CompletableFuture::join);
            final AtomicBoolean writing = new AtomicBoolean(true);
            final AtomicReference<Throwable> writerFailure = new AtomicReference<>();
            final Thread writer = new Thread(() -> write(client, writing, writerFailure), "writer");
            writer.start();
            awaitAcked(acked.get() + 50, "the writer runs");
            for (int i = 0; i < KEYS; i++)
            {
                ackedAtStart[i] = ackedVersion.get(i);
            }
            final long ackedBefore = acked.get();
            final List<ClusterNode> map = NodeConnection.handshake(source.node(2).controlAddress(), "", TlsSettings.OFF)
                .clusterMap().stream().sorted(Comparator.comparingInt(ClusterNode::firstSlot)).toList();
            final ClusterNode last = map.get(map.size() - 1);
            final int newPrimary = last.backups().get(0);
            final AtomicLong ackedAtFirstRange = new AtomicLong(-1);
            final List<String> printed = new ArrayList<>();
            // After the first range's snapshot, hold the backup until the writer acknowledged 200 more writes and
            // the last range failed over to its backup (its old primary knows): the tool must read it from there.
            final Consumer<String> hold = line ->
            {
                printed.add(line);
                if (line.startsWith("range ") && ackedAtFirstRange.compareAndSet(-1, acked.get()))
                {
                    failOver(source, last, newPrimary);
                    awaitAcked(ackedAtFirstRange.get() + 200, "writes while the backup runs");
                }
            };
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int code = new CommandLine(new BackupCommand(lines(hold), new PrintStream(err, true)))
                .execute("--cluster", source.node(2).seed(), "--out", backup.toString(), "--page-bytes", "65536");
            writing.set(false);
            writer.join(TimeUnit.MINUTES.toMillis(2));
            assertNull(writerFailure.get(), () -> "the writer failed: " + writerFailure.get());
            assertEquals(0, code, err.toString(StandardCharsets.UTF_8));
            assertTrue(ackedAtFirstRange.get() >= ackedBefore, "the backup was held after its first range");
            for (int i = 0; i < KEYS; i++)
            {
                startedAtEnd[i] = startedVersion.get(i);
            }

            final JsonNode manifest = JSON.readTree(backup.resolve("manifest.json").toFile());
            assertEquals(3, manifest.path("ranges").size(), manifest.toString());
            assertEquals(KEYS, manifest.path("keys").asLong(), "every key once: " + manifest);
            long next = 0;
            for (final JsonNode r : manifest.path("ranges"))
            {
                assertEquals(next, r.path("firstSlot").asLong(), manifest.toString());
                next = r.path("lastSlot").asLong() + 1;
                assertTrue(Files.isRegularFile(backup.resolve(r.path("file").asText())), r.toString());
                assertEquals(64, r.path("sha256").asText().length(), r.toString());
            }
            assertEquals(16_384, next, "every slot: " + manifest);
            final JsonNode moved = manifest.path("ranges").get(2);
            assertEquals(List.of(map.get(0).nodeId(), map.get(1).nodeId(), newPrimary),
                List.of(manifest.path("ranges").get(0).path("primary").asInt(),
                    manifest.path("ranges").get(1).path("primary").asInt(), moved.path("primary").asInt()),
                "each range from its primary (not the seed), the failed-over one from its new primary: " + manifest);
            assertTrue(moved.path("epoch").asLong() > last.rangeEpoch(), manifest.toString());
            assertTrue(manifest.path("mapEpoch").asLong() >= moved.path("epoch").asLong(), manifest.toString());
            assertTrue(printed.stream().anyMatch(l -> l.startsWith("the cluster map changed")), printed.toString());

            // A node's backup of a cluster node still works (what that node stores), with a warning.
            final ByteArrayOutputStream nodeErr = new ByteArrayOutputStream();
            assertEquals(0, new CommandLine(new BackupCommand(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(nodeErr, true))).execute("--server", source.node(1).seed(), "--out",
                dir.resolve("node-1-backup").toString()));
            assertTrue(nodeErr.toString(StandardCharsets.UTF_8).contains("warning: node 1 is one of a cluster (3 " +
                "ranges"), nodeErr.toString());
        }

        try (LocalCluster two = LocalCluster.start(dir.resolve("two"), 2, 1, LEASE_MS))
        {
            final ByteArrayOutputStream refused = new ByteArrayOutputStream();
            assertEquals(1, new CommandLine(new RestoreCommand(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(refused, true))).execute("--in", dir.resolve("node-1-backup").toString(), "--server",
                two.node(1).seed()), "a node's restore into one node of a cluster");
            assertTrue(refused.toString(StandardCharsets.UTF_8).contains("is primary of slots ") &&
                refused.toString(StandardCharsets.UTF_8).contains("nothing was written"), refused.toString());
            assertNothingWritten(two);
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int code = new CommandLine(new RestoreCommand(new PrintStream(out, true), new PrintStream(err, true)))
                .execute("--in", backup.toString(), "--cluster", String.join(",", two.seeds()), "--transport", "tcp",
                    "--progress", dir.resolve("two.progress").toString());
            assertEquals(0, code, out + "\n" + err);
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("all " + KEYS + " keys read back and verified"),
                out.toString());
            checkValues(two, ackedAtStart, startedAtEnd);
        }

        try (LocalCluster four = LocalCluster.start(dir.resolve("four"), 4, 1, LEASE_MS))
        {
            damagedBackupWritesNothing(backup, four);
            final Path progress = dir.resolve("four.progress");
            final List<ProcessFaults.Paused> paused = new ArrayList<>();
            final String[] args = {"--in", backup.toString(), "--cluster", String.join(",", four.seeds()),
                "--transport", "tcp", "--progress", progress.toString(), "--timeout-ms", "3000", "--batch", "100"};
            // Stop every target node once the first range is written: the next range's PUTs time out.
            final Consumer<String> stopTargets = line ->
            {
                if (line.endsWith("keys written") && paused.isEmpty())
                {
                    four.nodes().forEach(n -> paused.add(ProcessFaults.pause(n.pid())));
                }
            };
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int cut = new CommandLine(new RestoreCommand(lines(stopTargets), new PrintStream(err, true)))
                .execute(args);
            paused.forEach(ProcessFaults.Paused::close);
            assertEquals(1, cut, "cut off: " + err);
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("run the restore again to continue"),
                err.toString());
            final JsonNode marker = JSON.readTree(progress.toFile());
            assertTrue(marker.path("done").size() >= 1, "the first range is in the marker: " + marker);

            // Again, with the default timeout: the nodes may be electing a leader after their pause.
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final int code = new CommandLine(new RestoreCommand(new PrintStream(out, true),
                new PrintStream(err, true))).execute(Arrays.copyOf(args, 8));
            assertEquals(0, code, out + "\n" + err);
            assertTrue(out.toString(StandardCharsets.UTF_8).contains("(continued after "), out.toString());
            checkValues(four, ackedAtStart, startedAtEnd);
        }
    }

    /**
     * A cluster backup keeps each key's data version and expiry (manifest format 2) and a restore into another
     * cluster writes them back: the same version (a replace against the version read before the backup is applied),
     * the same expiry, and keys already expired at the backup are not in it.
     */
    @Test
    void shouldKeepDataVersionsAndExpiriesThroughAClusterBackupAndRestore() throws Exception
    {
        final int plain = 30;
        final int withTtl = 10;
        final int expired = 5;
        final Path backup = dir.resolve("records-backup");
        final long[] versions = new long[plain + withTtl];
        final long expiry = System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1);
        try (LocalCluster source = LocalCluster.start(dir.resolve("records-source"), 2, 0, LEASE_MS);
             KvClient client = client(source, Duration.ofSeconds(30)))
        {
            for (int i = 0; i < plain + withTtl + expired; i++)
            {
                if (i < plain)
                {
                    client.put(key(i), value(i, 1));
                    versions[i] = client.getWithVersion(key(i)).version();
                }
                else if (i < plain + withTtl)
                {
                    versions[i] = client.put(key(i), value(i, 1), java.time.Instant.ofEpochMilli(expiry));
                }
                else
                {
                    client.put(key(i), value(i, 1), java.time.Instant.now().minusSeconds(60));
                }
            }
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(0, new CommandLine(new BackupCommand(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true))).execute("--cluster", source.node(1).seed(), "--out", backup.toString()),
                err.toString(StandardCharsets.UTF_8));
            final JsonNode manifest = JSON.readTree(backup.resolve("manifest.json").toFile());
            assertEquals(2, manifest.path("format").asInt(), manifest.toString());
            assertEquals(plain + withTtl, manifest.path("keys").asLong(), "the expired keys are left out: " + manifest);
        }
        try (LocalCluster target = LocalCluster.start(dir.resolve("records-target"), 2, 0, LEASE_MS);
             KvClient client = client(target, Duration.ofSeconds(30)))
        {
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            assertEquals(0, new CommandLine(new RestoreCommand(new PrintStream(out, true), new PrintStream(err, true)))
                .execute("--in", backup.toString(), "--cluster", String.join(",", target.seeds()), "--transport",
                    "tcp"), out + "\n" + err);
            for (int i = 0; i < plain + withTtl; i++)
            {
                final io.rdmakv.client.Versioned read = client.getWithVersion(key(i));
                assertArrayEquals(value(i, 1), read.value(), "key-" + i);
                assertEquals(versions[i], read.version(), "key-" + i + " keeps its data version");
                final long left = client.ttlMillis(key(i));
                if (i < plain)
                {
                    assertEquals(-1, left, "key-" + i + " has no expiry");
                }
                else
                {
                    assertTrue(left > 0 && left <= expiry - System.currentTimeMillis() + 1_000, "key-" + i +
                        " keeps its expiry instant: " + left + " ms left");
                }
            }
            for (int i = plain + withTtl; i < plain + withTtl + expired; i++)
            {
                assertNull(client.get(key(i)), "key-" + i + " had expired before the backup");
            }
            assertTrue(client.replace(key(0), versions[0], value(0, 2)).applied(),
                "a replace against the version read before the backup");
        }
    }

    /** Manual failover of {@code range} to {@code to}; returns once its old primary's own map says so. */
    private static void failOver(final LocalCluster cluster, final ClusterNode range, final int to)
    {
        try (ControlPlaneClient control = new ControlPlaneClient())
        {
            final AdminReply reply = control.admin(HostPort.parse(cluster.node(to).seed()),
                new Admin(new byte[0], "failover " + range.firstSlot() + " " + to), Duration.ofMinutes(1));
            assertTrue(reply.ok(), reply.text());
        }
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        List<ClusterNode> seen = List.of();
        while (System.nanoTime() < deadline)
        {
            try
            {
                seen = NodeConnection.handshake(cluster.node(range.nodeId()).controlAddress(), "", TlsSettings.OFF)
                    .clusterMap();
            }
            catch (final IOException ex)
            {
                throw new AssertionError(ex);
            }
            if (seen.stream().anyMatch(r -> r.firstSlot() == range.firstSlot() && r.nodeId() == to))
            {
                return;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
        throw new AssertionError("node " + range.nodeId() + " never learnt of the failover: " + seen);
    }

    /** A copy of the backup with one byte of a range file changed is refused before anything is written. */
    private void damagedBackupWritesNothing(final Path backup, final LocalCluster target) throws Exception
    {
        final Path damaged = dir.resolve("damaged");
        Files.createDirectories(damaged);
        try (var files = Files.list(backup))
        {
            for (final Path f : files.toList())
            {
                Files.copy(f, damaged.resolve(f.getFileName()));
            }
        }
        final JsonNode first = JSON.readTree(damaged.resolve("manifest.json").toFile()).path("ranges").get(0);
        final Path file = damaged.resolve(first.path("file").asText());
        final byte[] bytes = Files.readAllBytes(file);
        bytes[bytes.length - 1] ^= 1;
        Files.write(file, bytes);
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = new CommandLine(new RestoreCommand(new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true))).execute("--in", damaged.toString(), "--cluster",
            String.join(",", target.seeds()), "--transport", "tcp");
        assertEquals(1, code, err.toString());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("the backup is damaged, nothing was written: " +
            first.path("file").asText()), err.toString());
        assertNothingWritten(target);
    }

    private static void assertNothingWritten(final LocalCluster target)
    {
        try (KvClient client = client(target, Duration.ofSeconds(30)))
        {
            final List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < KEYS; i++)
            {
                keys.add(key(i));
            }
            assertTrue(client.multiGet(keys).stream().allMatch(v -> v == null), "nothing written");
        }
    }

    /** Every key holds a version at least the one acknowledged before the backup began, and one that was written. */
    private static void checkValues(final LocalCluster cluster, final long[] ackedAtStart, final long[] startedAtEnd)
    {
        try (KvClient client = client(cluster, Duration.ofSeconds(30)))
        {
            final List<byte[]> keys = new ArrayList<>();
            for (int i = 0; i < KEYS; i++)
            {
                keys.add(key(i));
            }
            final List<byte[]> values = client.multiGet(keys);
            final List<String> wrong = new ArrayList<>();
            long newer = 0;
            for (int i = 0; i < KEYS; i++)
            {
                assertNotNull(values.get(i), "key-" + i + " restored");
                final long v = version(i, values.get(i));
                if (v < ackedAtStart[i] || v > startedAtEnd[i])
                {
                    wrong.add("key-" + i + ": version " + v + ", acknowledged " + ackedAtStart[i] + " before the " +
                        "backup, " + startedAtEnd[i] + " the last written");
                }
                newer += v > ackedAtStart[i] ? 1 : 0;
            }
            assertTrue(wrong.isEmpty(), wrong.size() + " keys wrong: " + wrong.stream().limit(10)
                .collect(Collectors.joining("; ")));
            assertTrue(newer > 0, "some writes made while the backup ran are in it");
        }
    }

    /** Overwrites the keys in turn with rising versions, one PUT at a time, until told to stop. */
    private void write(final KvClient client, final AtomicBoolean writing, final AtomicReference<Throwable> failure)
    {
        try
        {
            for (long n = 0; writing.get(); n++)
            {
                final int i = (int)(n % KEYS);
                final long v = startedVersion.incrementAndGet(i);
                client.put(key(i), value(i, v));
                ackedVersion.set(i, v);
                acked.incrementAndGet();
            }
        }
        catch (final Throwable ex)
        {
            failure.set(ex);
        }
    }

    private void awaitAcked(final long count, final String what)
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
        while (acked.get() < count)
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("never saw " + what + ": " + acked.get() + " of " + count + " acknowledged");
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
    }

    /** A stream that hands each complete line to {@code onLine} as it is printed. */
    private static PrintStream lines(final Consumer<String> onLine)
    {
        return new PrintStream(new OutputStream()
        {
            private final ByteArrayOutputStream line = new ByteArrayOutputStream();

            @Override
            public void write(final int b)
            {
                if (b == '\n')
                {
                    onLine.accept(line.toString(StandardCharsets.UTF_8));
                    line.reset();
                }
                else
                {
                    line.write(b);
                }
            }
        }, true, StandardCharsets.UTF_8);
    }
}

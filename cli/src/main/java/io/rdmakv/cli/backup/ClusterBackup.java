package io.rdmakv.cli.backup;

import io.rdmakv.protocol.auth.Login;

import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.server.backup.Backup;
import io.rdmakv.server.backup.NodeConnection;
import io.rdmakv.transport.tls.TlsSettings;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A backup of every slot range of a cluster, each read from its primary: the map comes from the seed's WELCOME; each
 * range is scanned page by page from one snapshot of its primary's store ({@link Backup#scanRecords}, the single-node
 * backup's SCAN) into its own {@link RangeFile}, and kept only if the primary's own map, asked before the scan and
 * again after it, still names it primary of the range at the same epoch: a failover or move meanwhile (which raises
 * the range's epoch) makes the tool read the range again from its new primary. Then {@code manifest.json}.
 */
final class ClusterBackup
{
    /** Map changes (failovers, moves) tolerated during one backup before it gives up. */
    static final int MAX_MAP_CHANGES = 20;

    private final InetSocketAddress seed;
    private final String credential;
    /** The user to log in as (a backup's scans need admin), or null. */
    private final Login login;
    private final TlsSettings tls;
    private final int pageBytes;
    private final Path dir;
    private final PrintStream log;

    /** A range read and checked ({@code range} set), or found changed ({@code map}: the view that says so). */
    private record Attempt(BackupManifest.Range range, Welcome map)
    {
    }

    ClusterBackup(final InetSocketAddress seed, final String credential, final Login login, final TlsSettings tls,
        final int pageBytes, final Path dir, final PrintStream log)
    {
        this.seed = seed;
        this.credential = credential;
        this.login = login;
        this.tls = tls;
        this.pageBytes = pageBytes;
        this.dir = dir.toAbsolutePath().normalize();
        this.log = log;
    }

    /**
     * Back the cluster up into the new directory.
     *
     * @throws IOException when the directory is not empty, a primary cannot be reached or fails, the map leaves
     *                     slots without a primary, or the map kept changing.
     */
    BackupManifest run() throws IOException
    {
        prepareDirectory();
        Welcome map = NodeConnection.handshake(seed, credential, login, tls);
        final Map<ClusterNode, BackupManifest.Range> done = new HashMap<>();
        int changes = 0;
        while (true)
        {
            final List<ClusterNode> ranges = ranges(map);
            for (final var it = done.entrySet().iterator(); it.hasNext(); )
            {
                final var entry = it.next();
                if (!ranges.contains(entry.getKey()))
                {
                    Files.deleteIfExists(dir.resolve(entry.getValue().file()));
                    it.remove();
                }
            }
            Welcome changed = null;
            for (final ClusterNode range : ranges)
            {
                if (done.containsKey(range))
                {
                    continue;
                }
                final Attempt attempt = backUp(range);
                if (attempt.range() == null)
                {
                    changed = attempt.map();
                    break;
                }
                done.put(range, attempt.range());
                log.printf("range %s: %d keys from node %d (epoch %d) in %d ms%n", attempt.range().hashSlots(),
                    attempt.range().keys(), range.nodeId(), range.rangeEpoch(), attempt.range().snapshotMs());
            }
            if (changed == null)
            {
                return finish(map, done);
            }
            if (++changes > MAX_MAP_CHANGES)
            {
                throw new IOException("the cluster map kept changing during the backup (" + changes + " times, " +
                    "now at epoch " + changed.clusterEpoch() + "): run it again once the failovers or moves are over");
            }
            final Welcome fromSeed = NodeConnection.handshake(seed, credential, login, tls);
            final Welcome newest = fromSeed.clusterEpoch() >= changed.clusterEpoch() ? fromSeed : changed;
            log.printf("the cluster map changed (epoch %d, now %d): reading the changed ranges again%n",
                map.clusterEpoch(), newest.clusterEpoch());
            if (newest.clusterEpoch() <= map.clusterEpoch())
            {
                // The primary's view is behind the seed's: it learns the map within a renewal interval.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50L * changes));
            }
            map = newest.clusterEpoch() >= map.clusterEpoch() ? newest : map;
        }
    }

    private void prepareDirectory() throws IOException
    {
        if (Files.isDirectory(dir))
        {
            try (var listing = Files.list(dir))
            {
                if (listing.findAny().isPresent())
                {
                    throw new IOException("backup directory " + dir + " is not empty");
                }
            }
        }
        Files.createDirectories(dir);
    }

    /** The map's ranges by first slot, checked to cover every slot once. */
    private static List<ClusterNode> ranges(final Welcome map) throws IOException
    {
        final List<ClusterNode> ranges = new ArrayList<>(map.clusterMap());
        ranges.sort(Comparator.comparingInt(ClusterNode::firstSlot));
        int next = 0;
        for (final ClusterNode r : ranges)
        {
            if (r.firstSlot() != next)
            {
                throw new IOException("node " + map.nodeId() + "'s cluster map (epoch " + map.clusterEpoch() +
                    ") gives slots " + next + "-" + (r.firstSlot() - 1) + " no primary: " + map.clusterMap());
            }
            next = r.lastSlot() + 1;
        }
        if (next != ProtocolLimits.HASH_SLOT_COUNT)
        {
            throw new IOException("node " + map.nodeId() + "'s cluster map (epoch " + map.clusterEpoch() +
                ") gives slots " + next + "-" + (ProtocolLimits.HASH_SLOT_COUNT - 1) + " no primary");
        }
        return ranges;
    }

    private Attempt backUp(final ClusterNode range) throws IOException
    {
        final InetSocketAddress primary = new InetSocketAddress(range.host(), range.controlPort());
        final String name = String.format("range-%05d-%05d.kv", range.firstSlot(), range.lastSlot());
        final Path part = dir.resolve(name + ".part");
        final long start = System.nanoTime();
        final RangeFile.Summary summary;
        final long[] expiredHere = new long[1];
        try (NodeConnection node = NodeConnection.open(primary, credential, login, tls))
        {
            if (!servesAsPrimary(node.welcome(), range))
            {
                return new Attempt(null, node.welcome());
            }
            try (RangeFile.Writer writer = new RangeFile.Writer(part))
            {
                // Each key's whole record (data version, expiry, value), so a restore keeps both; a key whose
                // expiry passed by this machine's clock is absent to every reader: left out.
                Backup.scanRecords(node, range.firstSlot(), range.lastSlot(), pageBytes, (key, record) ->
                {
                    if (ValueRecord.expired(ValueRecord.expiryMillis(record), System.currentTimeMillis()))
                    {
                        expiredHere[0]++;
                        return;
                    }
                    writer.accept(key, record);
                });
                summary = writer.finish();
            }
        }
        catch (final IOException ex)
        {
            Files.deleteIfExists(part);
            throw new IOException("range " + range.firstSlot() + "-" + range.lastSlot() + " at its primary, node " +
                range.nodeId() + " (" + range.host() + ":" + range.controlPort() + "): " + ex.getMessage(), ex);
        }
        final long millis = (System.nanoTime() - start) / 1_000_000;
        final Welcome after = NodeConnection.handshake(primary, credential, login, tls);
        if (!servesAsPrimary(after, range))
        {
            Files.delete(part);
            return new Attempt(null, after);
        }
        Files.move(part, dir.resolve(name), StandardCopyOption.REPLACE_EXISTING);
        if (expiredHere[0] > 0)
        {
            log.printf("range %d-%d: %d expired keys left out%n", range.firstSlot(), range.lastSlot(), expiredHere[0]);
        }
        return new Attempt(new BackupManifest.Range(range.firstSlot(), range.lastSlot(), range.rangeEpoch(),
            range.nodeId(), name, summary.keys(), summary.bytes(), summary.sha256(), millis), null);
    }

    /** Whether the node's own map names it primary of exactly {@code range} at the range's epoch. */
    private static boolean servesAsPrimary(final Welcome view, final ClusterNode range)
    {
        return view.nodeId() == range.nodeId() && view.clusterMap().stream().anyMatch(r ->
            r.firstSlot() == range.firstSlot() && r.lastSlot() == range.lastSlot() &&
                r.rangeEpoch() == range.rangeEpoch() && r.nodeId() == range.nodeId());
    }

    private BackupManifest finish(final Welcome map, final Map<ClusterNode, BackupManifest.Range> done)
        throws IOException
    {
        final List<BackupManifest.Range> ranges = new ArrayList<>(done.values());
        final BackupManifest manifest = new BackupManifest(BackupManifest.FORMAT,
            Instant.now().truncatedTo(ChronoUnit.MILLIS).toString(), seed.getHostString() + ":" + seed.getPort(),
            map.clusterEpoch(), ranges.stream().mapToLong(BackupManifest.Range::keys).sum(),
            ranges.stream().mapToLong(BackupManifest.Range::bytes).sum(), ranges);
        manifest.write(dir);
        return manifest;
    }
}

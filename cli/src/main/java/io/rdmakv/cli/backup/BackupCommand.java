package io.rdmakv.cli.backup;

import io.rdmakv.protocol.auth.Login;

import io.rdmakv.cli.Json;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.backup.Backup;
import io.rdmakv.server.backup.NodeConnection;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.store.StoreException;
import picocli.CommandLine;
import picocli.CommandLine.ArgGroup;
import io.rdmakv.cli.SecretOptions;
import io.rdmakv.cli.TlsOptions;
import io.rdmakv.transport.tls.TlsSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv backup}: a running node's keys as of one instant into a new data directory ({@code --server}), or
 * every range of a cluster from its primary into range files and a manifest ({@code --cluster},
 * {@link ClusterBackup}). Exit codes: 0 done, 1 a node or the directory failed, 2 bad options.
 */
@Command(name = "backup", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Copy every key of a running node (or of a slot range), or of a whole cluster, into a new directory.",
        "--server: the directory is a node's RocksDB store: start a node on it, or load it into a node with " +
            "rdmakv restore --server.",
        "--cluster: one file per slot range, each read from one snapshot of the range's primary, and " +
            "manifest.json (map epoch, ranges, key counts, SHA-256); load it with rdmakv restore --cluster.",
        "",
        "Examples:  rdmakv backup --server 127.0.0.1:7400 --out ./backup-1",
        "           rdmakv backup --cluster 127.0.0.1:7400 --out ./cluster-backup-1"},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:done", "1:a node or the directory failed (nothing usable written)", "2:bad options"})
public final class BackupCommand implements Callable<Integer>
{
    /** Where the keys come from: one node, or a cluster through one of its nodes. */
    static final class Source
    {
        @Option(names = "--server", required = true, paramLabel = "HOST:PORT", description = "the node's control port")
        String server;

        @Option(names = "--cluster", required = true, paramLabel = "HOST:PORT",
            description = "control port of any node of the cluster (the seed the map is read from)")
        String cluster;
    }

    @ArgGroup(exclusive = true, multiplicity = "1")
    Source source;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "new, empty backup directory")
    Path outDir;

    @Mixin
    SecretOptions secretOptions = new SecretOptions();

    @Mixin
    TlsOptions tlsOptions = new TlsOptions();
    /** The TLS settings {@link #tlsOptions} give; read when the command runs. */
    private TlsSettings tls;
    /** The secret {@link #secretOptions} give, the empty string for none; read when the command runs. */
    private String secret;
    /** The user {@link #secretOptions} give ({@code --user}), or null; read when the command runs. */
    private Login login;

    @Option(names = "--json", description = "print the summary as one JSON object (docs/operations.md)")
    boolean json;

    @Option(names = "--slots", paramLabel = "FIRST-LAST",
        description = "with --server: slot range to back up. Default: 0-16383.")
    String hashSlots;

    @Option(names = "--page-bytes", defaultValue = "1048576", description = "bytes per page. Default: ${DEFAULT-VALUE}.")
    int pageBytes;

    private final PrintStream out;
    private final PrintStream err;

    public BackupCommand()
    {
        this(System.out, System.err);
    }

    /** With the streams the command prints its progress and errors on. */
    public BackupCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call()
    {
        final int[] range;
        final InetSocketAddress address;
        try
        {
            secret = secretOptions.secretOrEmpty();
            login = secretOptions.login();
            tls = tlsOptions.settings();
            if (source.cluster != null && hashSlots != null)
            {
                throw new IllegalArgumentException("--slots goes with --server: --cluster backs up every slot");
            }
            range = slotRange(hashSlots == null ? "0-" + (ClusterState.HASH_SLOT_COUNT - 1) : hashSlots);
            address = RestoreCommand.hostPort(source.server != null ? source.server : source.cluster);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("rdmakv backup: " + ex.getMessage());
            return 2;
        }
        try
        {
            return source.cluster != null ? cluster(address) : node(address, range);
        }
        catch (final IOException | StoreException ex)
        {
            err.println("rdmakv backup: " + ex.getMessage());
            return 1;
        }
    }

    private int node(final InetSocketAddress address, final int[] range) throws IOException
    {
        try (NodeConnection node = NodeConnection.open(address, secret, login, tls))
        {
            final Welcome welcome = node.welcome();
            if (welcome.clusterMap().stream().anyMatch(r -> r.nodeId() != welcome.nodeId()))
            {
                err.printf("rdmakv backup: warning: node %d is one of a cluster (%d ranges, map epoch %d): this " +
                    "backup holds what node %d stores, as primary or backup, not the cluster; back the cluster up " +
                    "with --cluster%n", welcome.nodeId(), welcome.clusterMap().size(), welcome.clusterEpoch(),
                    welcome.nodeId());
            }
            final Backup.Result r = Backup.backup(node, range[0], range[1], pageBytes, outDir);
            if (json)
            {
                out.println(Json.line(Json.fields("from", range[0], "to", range[1], "keys", r.keys(), "bytes",
                    r.bytes(), "expired", r.expired(), "node", node.welcome().nodeId(), "server", source.server,
                    "dir", outDir.toAbsolutePath().toString(), "millis", r.millis())));
                return 0;
            }
            out.printf("backed up %d keys (%.1f MiB) of slots %d-%d from node %d at %s into %s in %d ms%s%n", r.keys(),
                r.bytes() / (double)(1 << 20), range[0], range[1], node.welcome().nodeId(), source.server,
                outDir.toAbsolutePath(), r.millis(), leftOut(r));
            return 0;
        }
    }

    /** The expired keys a backup or restore left out, as the tail of its line ("" when none). */
    static String leftOut(final Backup.Result r)
    {
        return r.expired() == 0 ? "" : "; " + r.expired() + " expired keys left out";
    }

    private int cluster(final InetSocketAddress address) throws IOException
    {
        final long start = System.nanoTime();
        final BackupManifest m = new ClusterBackup(address, secret, login, tls, pageBytes, outDir, json ? err : out).run();
        if (json)
        {
            out.println(Json.line(Json.fields("keys", m.keys(), "bytes", m.bytes(), "ranges", m.ranges().size(),
                "cluster", source.cluster, "mapEpoch", m.mapEpoch(), "dir", outDir.toAbsolutePath().toString(),
                "millis", (System.nanoTime() - start) / 1_000_000)));
            return 0;
        }
        out.printf("backed up %d keys (%.1f MiB) of %d ranges of the cluster at %s (map epoch %d) into %s in %d ms%n",
            m.keys(), m.bytes() / (double)(1 << 20), m.ranges().size(), source.cluster, m.mapEpoch(),
            outDir.toAbsolutePath(), (System.nanoTime() - start) / 1_000_000);
        return 0;
    }

    static int[] slotRange(final String text)
    {
        final String[] parts = text.trim().split("-");
        try
        {
            final int first = Integer.parseInt(parts[0].trim());
            final int last = parts.length == 2 ? Integer.parseInt(parts[1].trim()) : first;
            if (parts.length > 2 || first < 0 || first > last || last >= ClusterState.HASH_SLOT_COUNT)
            {
                throw new NumberFormatException();
            }
            return new int[] {first, last};
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("--slots must be FIRST-LAST within 0-" + (ClusterState.HASH_SLOT_COUNT - 1) +
                ": " + text);
        }
    }

    /** Run with picocli's parsing and error reporting; returns the exit code. */
    public static int run(final String... args)
    {
        return new CommandLine(new BackupCommand()).execute(args);
    }
}

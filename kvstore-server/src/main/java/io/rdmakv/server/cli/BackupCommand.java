package io.rdmakv.server.cli;

import io.rdmakv.server.backup.Backup;
import io.rdmakv.server.backup.NodeConnection;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.store.StoreException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.IOException;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv backup}: a running node's keys as of one instant into a new data directory. Exit codes: 0 done,
 * 1 the node or the directory failed, 2 bad options.
 */
@Command(name = "backup", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Copy every key of a running node (or of a slot range) as of one instant into a new data directory.",
        "The directory is a node's RocksDB store: start a node on it, or load it into a node with rdmakv restore.",
        "",
        "Example:  rdmakv backup --server 127.0.0.1:7400 --out ./backup-1"})
public final class BackupCommand implements Callable<Integer>
{
    @Option(names = "--server", required = true, paramLabel = "HOST:PORT", description = "the node's control port")
    String server;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "new, empty backup directory")
    Path outDir;

    @Option(names = "--secret", defaultValue = "", description = "the node's auth.secret, if it has one")
    String secret;

    @Option(names = "--slots", defaultValue = "0-16383", paramLabel = "FIRST-LAST",
        description = "slot range to back up. Default: ${DEFAULT-VALUE}.")
    String slots;

    @Option(names = "--json", description = "print the summary as one JSON object (docs/operations.md)")
    boolean json;

    @Option(names = "--page-bytes", defaultValue = "1048576", description = "bytes per page. Default: ${DEFAULT-VALUE}.")
    int pageBytes;

    private final PrintStream out;
    private final PrintStream err;

    public BackupCommand()
    {
        this(System.out, System.err);
    }

    BackupCommand(final PrintStream out, final PrintStream err)
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
            range = slotRange(slots);
            address = RestoreCommand.hostPort(server);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("rdmakv backup: " + ex.getMessage());
            return 2;
        }
        try (NodeConnection node = NodeConnection.open(address, secret))
        {
            final Backup.Result r = Backup.backup(node, range[0], range[1], pageBytes, outDir);
            if (json)
            {
                out.println(SummaryJson.write("from", range[0], "to", range[1], "keys", r.keys(), "bytes", r.bytes(),
                    "node", node.welcome().nodeId(), "server", server, "dir", outDir.toAbsolutePath().toString(),
                    "millis", r.millis()));
                return 0;
            }
            out.printf("backed up %d keys (%.1f MiB) of slots %d-%d from node %d at %s into %s in %d ms%n", r.keys(),
                r.bytes() / (double)(1 << 20), range[0], range[1], node.welcome().nodeId(), server,
                outDir.toAbsolutePath(), r.millis());
            return 0;
        }
        catch (final IOException | StoreException ex)
        {
            err.println("rdmakv backup: " + ex.getMessage());
            return 1;
        }
    }

    static int[] slotRange(final String text)
    {
        final String[] parts = text.trim().split("-");
        try
        {
            final int first = Integer.parseInt(parts[0].trim());
            final int last = parts.length == 2 ? Integer.parseInt(parts[1].trim()) : first;
            if (parts.length > 2 || first < 0 || first > last || last >= ClusterState.SLOT_COUNT)
            {
                throw new NumberFormatException();
            }
            return new int[] {first, last};
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("--slots must be FIRST-LAST within 0-" + (ClusterState.SLOT_COUNT - 1) +
                ": " + text);
        }
    }

    /** Run with picocli's parsing and error reporting; returns the exit code. */
    public static int run(final String... args)
    {
        return new CommandLine(new BackupCommand()).execute(args);
    }
}

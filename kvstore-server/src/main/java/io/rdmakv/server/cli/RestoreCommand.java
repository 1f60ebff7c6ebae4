package io.rdmakv.server.cli;

import io.rdmakv.server.backup.Backup;
import io.rdmakv.server.backup.NodeConnection;
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
 * {@code rdmakv restore}: PUT every key of a backup directory into a running node. Exit codes: 0 done, 1 the node
 * or the directory failed, 2 bad options.
 */
@Command(name = "restore", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Write every key of a backup directory (rdmakv backup) into a running node, as PUTs.",
        "",
        "Example:  rdmakv restore --in ./backup-1 --server 127.0.0.1:7400"})
public final class RestoreCommand implements Callable<Integer>
{
    @Option(names = "--in", required = true, paramLabel = "DIR", description = "the backup directory")
    Path in;

    @Option(names = "--server", required = true, paramLabel = "HOST:PORT", description = "the node's control port")
    String server;

    @Option(names = "--json", description = "print the summary as one JSON object (docs/operations.md)")
    boolean json;

    @Option(names = "--secret", defaultValue = "", description = "the node's auth.secret, if it has one")
    String secret;

    private final PrintStream out;
    private final PrintStream err;

    public RestoreCommand()
    {
        this(System.out, System.err);
    }

    RestoreCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call()
    {
        final InetSocketAddress address;
        try
        {
            address = hostPort(server);
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("rdmakv restore: " + ex.getMessage());
            return 2;
        }
        try (NodeConnection node = NodeConnection.open(address, secret))
        {
            final Backup.Result r = Backup.restore(in, node);
            if (json)
            {
                out.println(SummaryJson.write("keys", r.keys(), "bytes", r.bytes(), "dir",
                    in.toAbsolutePath().toString(), "node", node.welcome().nodeId(), "server", server, "millis",
                    r.millis()));
                return 0;
            }
            out.printf("restored %d keys (%.1f MiB) from %s into node %d at %s in %d ms%n", r.keys(),
                r.bytes() / (double)(1 << 20), in.toAbsolutePath(), node.welcome().nodeId(), server, r.millis());
            return 0;
        }
        catch (final IOException | StoreException ex)
        {
            err.println("rdmakv restore: " + ex.getMessage());
            return 1;
        }
    }

    static InetSocketAddress hostPort(final String text)
    {
        final int colon = text.lastIndexOf(':');
        try
        {
            if (colon <= 0)
            {
                throw new NumberFormatException();
            }
            return new InetSocketAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        }
        catch (final IllegalArgumentException ex)
        {
            throw new IllegalArgumentException("--server must be HOST:PORT: " + text);
        }
    }

    /** Run with picocli's parsing and error reporting; returns the exit code. */
    public static int run(final String... args)
    {
        return new CommandLine(new RestoreCommand()).execute(args);
    }
}

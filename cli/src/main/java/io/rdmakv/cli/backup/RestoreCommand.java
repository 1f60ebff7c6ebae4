package io.rdmakv.cli.backup;

import io.rdmakv.protocol.auth.Login;

import io.rdmakv.cli.Json;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.backup.Backup;
import io.rdmakv.server.backup.NodeConnection;
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
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code rdmakv restore}: PUT every key of a node's backup into a running node ({@code --server}), or of a cluster
 * backup into a running cluster of any size ({@code --cluster}, {@link ClusterRestore}: routed by slot, batched,
 * resumable, verified). Exit codes: 0 done, 1 failed, 2 bad options, 3 written but not verified.
 */
@Command(name = "restore", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Write every key of a backup directory (rdmakv backup) into a running node or cluster, as PUTs.",
        "--server: a node's backup (a data directory) into that node.",
        "--cluster: a cluster backup (manifest.json and range files) into a cluster of any size, each key sent " +
            "to its slot's primary; the range files are checked against the manifest before anything is written, " +
            "progress is kept in a marker so that running the same command again continues where it stopped, and " +
            "every key is read back at the end and compared with the backup.",
        "",
        "Examples:  rdmakv restore --in ./backup-1 --server 127.0.0.1:7400",
        "           rdmakv restore --in ./cluster-backup-1 --cluster 127.0.0.1:7400"},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:done (--cluster: and verified)",
        "1:failed: the backup is damaged, a node refused or failed (--cluster: run again to continue)",
        "2:bad options", "3:--cluster: written, but the cluster does not hold the backup's values"})
public final class RestoreCommand implements Callable<Integer>
{
    /** Where the keys go: one node, or a cluster through its seeds. */
    static final class Target
    {
        @Option(names = "--server", required = true, paramLabel = "HOST:PORT", description = "the node's control port")
        String server;

        @Option(names = "--cluster", required = true, paramLabel = "HOST:PORT[,HOST:PORT...]",
            description = "control port of one or more nodes of the target cluster (seeds)")
        String cluster;
    }

    @Option(names = "--in", required = true, paramLabel = "DIR", description = "the backup directory")
    Path in;

    @ArgGroup(exclusive = true, multiplicity = "1")
    Target target;

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

    @Option(names = "--transport", defaultValue = "auto", paramLabel = "NAME",
        description = "with --cluster: the client's transport, auto, tcp or verbs. Default: ${DEFAULT-VALUE}.")
    String transport;

    @Option(names = "--batch", defaultValue = "256", paramLabel = "N",
        description = "with --cluster: PUTs in flight before the progress marker is written. Default: " +
            "${DEFAULT-VALUE}.")
    int batch;

    @Option(names = "--progress", paramLabel = "FILE",
        description = "with --cluster: the progress marker. Default: DIR/" + RestoreProgress.FILE_NAME + ".")
    Path progress;

    @Option(names = "--restart", description = "with --cluster: ignore the progress marker, write every key again")
    boolean restart;

    @Option(names = "--timeout-ms", defaultValue = "30000", paramLabel = "MS",
        description = "with --cluster: connect and request timeout. Default: ${DEFAULT-VALUE}.")
    long timeoutMillis;

    private final PrintStream out;
    private final PrintStream err;

    public RestoreCommand()
    {
        this(System.out, System.err);
    }

    /** With the streams the command prints its progress and errors on. */
    public RestoreCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    @Override
    public Integer call()
    {
        final InetSocketAddress address;
        final List<String> seeds;
        try
        {
            secret = secretOptions.secretOrEmpty();
            login = secretOptions.login();
            tls = tlsOptions.settings();
            if (target.server != null)
            {
                address = hostPort(target.server);
                seeds = List.of();
            }
            else
            {
                seeds = Arrays.stream(target.cluster.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
                seeds.forEach(RestoreCommand::hostPort);
                address = null;
                if (batch < 1 || batch > 65_536)
                {
                    throw new IllegalArgumentException("--batch must be 1 to 65536: " + batch);
                }
                if (timeoutMillis < 1 || timeoutMillis > 3_600_000)
                {
                    throw new IllegalArgumentException("--timeout-ms must be 1 to 3600000: " + timeoutMillis);
                }
            }
        }
        catch (final IllegalArgumentException ex)
        {
            err.println("rdmakv restore: " + ex.getMessage());
            return 2;
        }
        try
        {
            return address != null ? node(address) : cluster(seeds);
        }
        catch (final IOException | StoreException | KvException ex)
        {
            err.println("rdmakv restore: " + ex.getMessage());
            return 1;
        }
        catch (final ClusterRestore.MismatchException ex)
        {
            err.println("rdmakv restore: " + ex.getMessage());
            return 3;
        }
    }

    private int node(final InetSocketAddress address) throws IOException
    {
        try (NodeConnection node = NodeConnection.open(address, secret, login, tls))
        {
            final Welcome welcome = node.welcome();
            final String owned = welcome.clusterMap().stream().filter(r -> r.nodeId() == welcome.nodeId())
                .map(r -> r.firstSlot() + "-" + r.lastSlot()).collect(Collectors.joining(", "));
            if (welcome.clusterMap().stream().anyMatch(r -> r.nodeId() != welcome.nodeId()))
            {
                throw new IOException("node " + welcome.nodeId() + " at " + target.server + " is primary of slots " +
                    (owned.isEmpty() ? "none" : owned) + " only, of a cluster of " + welcome.clusterMap().size() +
                    " ranges: through it the restore would stop at the first key another node owns; nothing was " +
                    "written. Restore a cluster backup with --cluster; to move this node's backup into a cluster, " +
                    "start a node on it (it is a data directory), back that node up with --cluster and restore that");
            }
            final Backup.Result r = Backup.restore(in, node);
            if (json)
            {
                out.println(Json.line(Json.fields("keys", r.keys(), "bytes", r.bytes(), "expired", r.expired(),
                    "dir", in.toAbsolutePath().toString(), "node", node.welcome().nodeId(), "server", target.server,
                    "millis", r.millis())));
                return 0;
            }
            out.printf("restored %d keys (%.1f MiB) from %s into node %d at %s in %d ms%s%n", r.keys(),
                r.bytes() / (double)(1 << 20), in.toAbsolutePath(), node.welcome().nodeId(), target.server,
                r.millis(), BackupCommand.leftOut(r));
            return 0;
        }
    }

    private int cluster(final List<String> seeds) throws IOException, ClusterRestore.MismatchException
    {
        BackupManifest.read(in); // not a cluster backup: said before connecting
        final KvClientBuilder builder = KvClient.builder().servers(seeds).transport(transport)
            .connectTimeout(Duration.ofMillis(timeoutMillis)).requestTimeout(Duration.ofMillis(timeoutMillis))
            .maxQueuedRequests(Math.max(batch, KvClientBuilder.DEFAULT_MAX_QUEUED_REQUESTS));
        builder.login(login);
        if (!secret.isEmpty())
        {
            builder.secret(secret);
        }
        TlsOptions.apply(builder, tls);
        final Path marker = progress != null ? progress : in.resolve(RestoreProgress.FILE_NAME);
        try (KvClient client = builder.build())
        {
            final ClusterRestore.Result r = new ClusterRestore(client, in, marker, String.join(",", seeds), restart,
                batch, json ? err : out).run();
            if (json)
            {
                out.println(Json.line(Json.fields("keys", r.written(), "verified", r.verified(), "resumedPast",
                    r.resumedPast(), "expired", r.expired(), "dir", in.toAbsolutePath().toString(), "cluster",
                    target.cluster, "millis", r.millis())));
                return 0;
            }
            out.printf("restored %d keys from %s into the cluster at %s in %d ms%s; all %d keys read back and " +
                "verified%s%n", r.written(), in.toAbsolutePath(), target.cluster, r.millis(),
                r.resumedPast() > 0 ? " (continued after " + r.resumedPast() + " keys written before)" : "",
                r.verified(), r.expired() > 0 ? "; " + r.expired() + " keys expired since the backup left out" : "");
            return 0;
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
            throw new IllegalArgumentException("expected HOST:PORT: " + text);
        }
    }

    /** Run with picocli's parsing and error reporting; returns the exit code. */
    public static int run(final String... args)
    {
        return new CommandLine(new RestoreCommand()).execute(args);
    }
}

package io.rdmakv.cli.cluster;

import io.rdmakv.cli.ExitCodes;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.server.cli.ServerCommand;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code rdmakv cluster add-node}: run a new node (in the foreground, as {@code rdmakv server} does) that joins the
 * cluster {@code --server} belongs to: the voters are read from that node's status. It joins holding no range;
 * {@code rdmakv cluster rebalance} then moves ranges to it. With {@code --raft-port} it also runs a Raft server outside
 * the group, so that {@code rdmakv cluster add-voter} (or {@code replace-voter}) can make it a voter.
 */
@Command(name = "add-node", mixinStandardHelpOptions = true,
    description = "Run a new node that joins the cluster of --server (foreground); then run 'cluster rebalance'.")
public final class AddNodeCommand implements Callable<Integer>
{
    private static final Pattern VOTERS = Pattern.compile("\"voters\":\"([^\"]*)\"");

    @ParentCommand
    ClusterCommand cluster;

    @Option(names = {"-s", "--server"}, paramLabel = "HOST:PORT", required = true,
        description = "any node of the cluster (its control port)")
    String server;

    @Option(names = "--node-id", required = true, description = "the new node's id (unused in the cluster)")
    int nodeId;

    @Option(names = "--port", required = true, description = "its control port; the data port is the next one")
    int port;

    @Option(names = "--data-dir", required = true, description = "its data directory")
    Path dataDir;

    @Option(names = "--host", defaultValue = "127.0.0.1", description = "address it binds and advertises")
    String host;

    @Option(names = "--raft-port", description = "run a Raft server on this port, so that 'cluster add-voter' or " +
        "'cluster replace-voter' can make the node a voter")
    Integer raftPort;

    @Option(names = "--credential", paramLabel = "SECRET", defaultValue = "${env:RDMAKV_CREDENTIAL}",
        description = "shared secret of the cluster")
    String credential;

    @Option(names = {"-S", "--set"}, paramLabel = "KEY=VALUE", description = "any other server setting")
    Map<String, String> settings = new LinkedHashMap<>();

    @Override
    public Integer call()
    {
        final AdminReply status;
        try
        {
            status = AdminCall.send(server, credential, "status json", Duration.ofSeconds(10));
        }
        catch (final KvException ex)
        {
            cluster.root().io().err().println("rdmakv cluster add-node: " + ex.getMessage());
            return ExitCodes.FAILED;
        }
        final Matcher m = VOTERS.matcher(status.text());
        if (!status.ok() || !m.find() || m.group(1).isEmpty())
        {
            cluster.root().io().err().println("rdmakv cluster add-node: " + server + " runs no replicated cluster: " +
                status.text());
            return ExitCodes.FAILED;
        }
        if (status.text().contains("{\"id\":" + nodeId + ","))
        {
            cluster.root().io().err().println("rdmakv cluster add-node: node id " + nodeId + " is taken");
            return ExitCodes.USAGE;
        }
        final List<String> args = new ArrayList<>(List.of("--node-id", Integer.toString(nodeId), "--host", host,
            "--port", Integer.toString(port), "--data-port", Integer.toString(port + 1), "--data-dir",
            dataDir.toString(), "-S", "cluster.voters=" + m.group(1)));
        if (raftPort != null)
        {
            args.addAll(List.of("-S", "cluster.raftPort=" + raftPort));
        }
        if (credential != null)
        {
            args.addAll(List.of("-S", "auth.secret=" + credential));
        }
        settings.forEach((k, v) -> args.addAll(List.of("-S", k + "=" + v)));
        cluster.root().io().out().println("node " + nodeId + " joins the cluster of voters " + m.group(1) +
            "; then: rdmakv cluster rebalance --server " + server + (raftPort == null ? "" :
            "; to make it a voter: rdmakv cluster add-voter --server " + server + " --node " + nodeId +
            " --raft-address " + host + ":" + raftPort));
        cluster.root().io().out().flush();
        return ServerCommand.run(args.toArray(String[]::new));
    }
}

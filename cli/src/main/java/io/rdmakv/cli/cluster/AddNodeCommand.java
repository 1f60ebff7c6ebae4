package io.rdmakv.cli.cluster;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.cli.ExitCodes;
import io.rdmakv.cli.Json;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.server.cli.ServerCommand;
import io.rdmakv.cli.SecretOptions;
import io.rdmakv.cli.TlsOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

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

    @Mixin
    SecretOptions secret = new SecretOptions();

    @Mixin
    TlsOptions tls = new TlsOptions();

    @Option(names = "--json", description = "announce the join as one JSON line (node, voters, next commands) " +
        "before the node's own output")
    boolean json;

    @Option(names = {"-S", "--set"}, paramLabel = "KEY=VALUE", description = "any other server setting")
    Map<String, String> settings = new LinkedHashMap<>();

    @Override
    public Integer call()
    {
        final AdminReply status;
        try
        {
            status = AdminCall.send(server, secret, tls.settings(), "json status", Duration.ofSeconds(10));
        }
        catch (final KvException ex)
        {
            cluster.root().io().err().println("rdmakv cluster add-node: " + ex.getMessage());
            return ExitCodes.FAILED;
        }
        final JsonNode root = status.ok() ? Json.read(status.text()) : null;
        final List<String> voterList = new ArrayList<>();
        if (root != null)
        {
            root.path("voters").forEach(v -> voterList.add(v.path("id").asInt() + "@" + v.path("host").asText() + ":" +
                v.path("port").asInt()));
        }
        if (voterList.isEmpty())
        {
            cluster.root().io().err().println("rdmakv cluster add-node: " + server + " runs no replicated cluster: " +
                status.text());
            return ExitCodes.FAILED;
        }
        final String voters = String.join(",", voterList);
        boolean taken = false;
        for (final JsonNode n : root.path("nodes"))
        {
            taken |= n.path("id").asInt() == nodeId;
        }
        if (taken)
        {
            cluster.root().io().err().println("rdmakv cluster add-node: node id " + nodeId + " is taken");
            return ExitCodes.USAGE;
        }
        final List<String> args = new ArrayList<>(List.of("--node-id", Integer.toString(nodeId), "--host", host,
            "--port", Integer.toString(port), "--data-port", Integer.toString(port + 1), "--data-dir",
            dataDir.toString(), "-S", "cluster.voters=" + voters));
        if (raftPort != null)
        {
            args.addAll(List.of("-S", "cluster.raftPort=" + raftPort));
        }
        if (secret.secretFile() != null)
        {
            args.addAll(List.of("--secret-file", secret.secretFile().toString())); // else the node reads the environment
        }
        settings.forEach((k, v) -> args.addAll(List.of("-S", k + "=" + v)));
        final String rebalance = "rdmakv cluster rebalance --server " + server;
        final String addVoter = raftPort == null ? null : "rdmakv cluster add-voter --server " + server + " --node " +
            nodeId + " --raft-address " + host + ":" + raftPort;
        if (json)
        {
            final ObjectNode joins = Json.mapper().createObjectNode().put("node", nodeId).put("host", host)
                .put("controlPort", port).put("dataPort", port + 1);
            joins.set("raftPort", raftPort == null ? joins.nullNode() : joins.numberNode(raftPort));
            joins.set("voters", root.path("voters"));
            joins.put("rebalance", rebalance).put("addVoter", addVoter);
            cluster.root().io().out().println(Json.line(joins));
        }
        else
        {
            cluster.root().io().out().println("node " + nodeId + " joins the cluster of voters " + voters +
                "; then: " + rebalance + (addVoter == null ? "" : "; to make it a voter: " + addVoter));
        }
        cluster.root().io().out().flush();
        return ServerCommand.run(args.toArray(String[]::new));
    }
}

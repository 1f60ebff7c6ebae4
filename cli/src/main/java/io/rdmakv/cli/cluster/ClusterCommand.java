package io.rdmakv.cli.cluster;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rdmakv.cli.ExitCodes;
import io.rdmakv.cli.Json;
import io.rdmakv.cli.RdmakvCommand;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.cli.SecretOptions;
import io.rdmakv.cli.TlsOptions;
import io.rdmakv.transport.tls.TlsSettings;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv cluster}: a local replicated cluster, and the operator's commands against any node of one.
 *
 * <pre>
 *   rdmakv cluster local --nodes 3 --replicas 1 --base-port 7400 --data-dir ./cluster
 *   rdmakv cluster status --server 127.0.0.1:7400 [--json]
 *   rdmakv cluster failover --server 127.0.0.1:7400 (--node 2 | --slot 0 --to 3)
 *   rdmakv cluster move --server ... --slots 0-99 --to 4      (then finish-move once node 4 is in sync)
 *   rdmakv cluster remove-node --server ... --node 4 [--force]   (drains its ranges first; a voter leaves the group)
 *   rdmakv cluster add-node --server ... --node-id 4 --port 7430 --data-dir ./cluster/node-4 [--raft-port 7432]
 *   rdmakv cluster rebalance --server ... [--plan]
 *   rdmakv cluster add-voter --server ... --node 4 --raft-address 127.0.0.1:7432
 *   rdmakv cluster remove-voter --server ... --node 3 [--force]
 *   rdmakv cluster replace-voter --server ... --node 3 --with 4 --raft-address 127.0.0.1:7432
 * </pre>
 *
 * Every command takes {@code --json}: the node answers its json form (ADMIN {@code json COMMAND}), printed as one
 * document; the fields are listed in docs/operations.md.
 */
@Command(name = "cluster", mixinStandardHelpOptions = true,
    description = "Run a local replicated cluster, or administer one (status, failover, moves).",
    subcommands = {LocalClusterCommand.class, ClusterCommand.Status.class, ClusterCommand.Failover.class,
        ClusterCommand.Move.class, ClusterCommand.FinishMove.class, ClusterCommand.RemoveNode.class,
        ClusterCommand.Rebalance.class, AddNodeCommand.class, VoterCommands.AddVoter.class,
        VoterCommands.RemoveVoter.class, VoterCommands.ReplaceVoter.class})
public final class ClusterCommand implements Runnable
{
    @ParentCommand
    RdmakvCommand parent;

    @Override
    public void run()
    {
        new picocli.CommandLine(this).usage(parent.io().out());
    }

    RdmakvCommand root()
    {
        return parent;
    }

    /** What every administration command shares. */
    abstract static class AdminCommand implements Callable<Integer>
    {
        @ParentCommand
        ClusterCommand cluster;

        @Option(names = {"-s", "--server"}, paramLabel = "HOST:PORT", required = true,
            description = "any node of the cluster (its control port)")
        String server;

        @Mixin
        SecretOptions secret = new SecretOptions();

        @Mixin
        TlsOptions tls = new TlsOptions();

        @Option(names = "--json", description = "print one JSON object (fields: docs/operations.md)")
        boolean json;

        @Option(names = "--timeout-ms", paramLabel = "MS", description = "answer within (default: 10000; 600000 " +
            "for remove-node and rebalance, 120000 for the voter changes)")
        Long timeoutMs;

        /** The wait when --timeout-ms is not given (picocli would apply an annotated default over any other). */
        long defaultTimeoutMs()
        {
            return 10_000;
        }

        long timeout()
        {
            return timeoutMs != null ? timeoutMs : defaultTimeoutMs();
        }

        abstract String command();

        @Override
        public Integer call()
        {
            final AdminReply reply;
            final String command = command();
            try
            {
                reply = AdminCall.send(server, secret, tls.settings(), json ? "json " + command : command,
                    Duration.ofMillis(timeout()));
            }
            catch (final KvException ex)
            {
                return unreachable(command, ex);
            }
            if (json)
            {
                // The node's outcome document, on stdout whether or not the command was carried out ("ok").
                cluster.root().io().out().println(Json.pretty(Json.read(reply.text())));
            }
            else
            {
                (reply.ok() ? cluster.root().io().out() : cluster.root().io().err()).println(reply.text());
            }
            return reply.ok() ? ExitCodes.OK : ExitCodes.FAILED;
        }

        /** The node did not answer: the reason on stderr, and with --json an outcome that says so on stdout. */
        int unreachable(final String command, final KvException ex)
        {
            cluster.root().io().err().println("rdmakv cluster: " + ex.getMessage());
            if (json)
            {
                final ObjectNode outcome = Json.mapper().createObjectNode().put("ok", false)
                    .put("command", command.split(" ")[0]).put("error", ex.getMessage());
                cluster.root().io().out().println(Json.pretty(outcome));
            }
            return ExitCodes.FAILED;
        }
    }

    @Command(name = "status", mixinStandardHelpOptions = true,
        description = "Nodes, roles, leases, slot ranges with epochs, primaries, backups and learners, and each " +
            "replica's lag as its primary sees it (every live node is asked).")
    static final class Status extends AdminCommand
    {
        @Override
        String command()
        {
            return "status";
        }

        @Override
        public Integer call()
        {
            final Duration timeout = Duration.ofMillis(timeout());
            final AdminReply text;
            final AdminReply structured;
            final SecretOptions credential = secret;
            final TlsSettings tlsSettings = tls.settings();
            try
            {
                structured = AdminCall.send(server, credential, tlsSettings, "json status", timeout);
                text = json || !structured.ok() ? structured : AdminCall.send(server, credential, tlsSettings, "status", timeout);
            }
            catch (final KvException ex)
            {
                return unreachable("status", ex);
            }
            if (!structured.ok())
            {
                cluster.root().io().err().println(structured.text());
                return ExitCodes.FAILED;
            }
            final List<ReplicaLagView.NodeLag> lags = ReplicaLagView.collect(structured.text(), address ->
            {
                final AdminReply lag = AdminCall.send(address, credential, tlsSettings, "lag", timeout);
                if (!lag.ok())
                {
                    throw new IllegalStateException(lag.text());
                }
                return lag.text();
            });
            cluster.root().io().out().println(json ? ReplicaLagView.json(structured.text(), lags) :
                text.text() + ReplicaLagView.text(lags));
            return ExitCodes.OK;
        }
    }

    @Command(name = "failover", mixinStandardHelpOptions = true,
        description = "Manual, lossless failover: --node N moves every range N is primary of to its first in-sync " +
            "backup; --slot S --to N makes the in-sync backup N primary of the range starting at slot S.")
    static final class Failover extends AdminCommand
    {
        @Option(names = "--node", description = "the primary to fail over")
        Integer node;

        @Option(names = "--slot", paramLabel = "<slot>", description = "first slot of the range")
        Integer hashSlot;

        @Option(names = "--to", description = "the in-sync backup that becomes primary")
        Integer to;

        @Override
        String command()
        {
            if (node != null)
            {
                return "failover-node " + node;
            }
            if (hashSlot == null || to == null)
            {
                throw new IllegalArgumentException("give --node N, or --slot S --to N");
            }
            return "failover " + hashSlot + " " + to;
        }
    }

    @Command(name = "move", mixinStandardHelpOptions = true,
        description = "Resharding, step 1: the slots FIRST-LAST (within one range) get node --to as a catching-up " +
            "replica (the range is MIGRATING); run finish-move once it is in sync.")
    static final class Move extends AdminCommand
    {
        @Option(names = "--slots", paramLabel = "FIRST-LAST", required = true, description = "slots to move")
        String hashSlots;

        @Option(names = "--to", required = true, description = "target node")
        int to;

        @Override
        String command()
        {
            final String[] p = hashSlots.split("-");
            if (p.length != 2)
            {
                throw new IllegalArgumentException("--slots must look like FIRST-LAST: " + hashSlots);
            }
            return "move " + p[0].trim() + " " + p[1].trim() + " " + to;
        }
    }

    @Command(name = "finish-move", mixinStandardHelpOptions = true,
        description = "Resharding, step 2: the in-sync target becomes primary of the moved range at the next epoch.")
    static final class FinishMove extends AdminCommand
    {
        @Option(names = "--slot", paramLabel = "<slot>", required = true, description = "first slot of the moved range")
        int hashSlot;

        @Option(names = "--to", required = true, description = "target node")
        int to;

        @Override
        String command()
        {
            return "finish-move " + hashSlot + " " + to;
        }
    }

    @Command(name = "remove-node", mixinStandardHelpOptions = true,
        description = "Drain a node, then remove it: each range it is primary of moves to another live node (which " +
            "catches up first, so no write is lost), each replica it holds is first copied to another node; then it " +
            "leaves the members and, if it is a voter, the coordination group (refused up front when fewer than 3 " +
            "voters would stay, unless --force). Clients follow with retries. Stop the node afterwards.")
    static final class RemoveNode extends AdminCommand
    {
        @Option(names = "--node", required = true, description = "the node")
        int node;

        @Option(names = "--force", description = "a voter leaves the group even when fewer than 3 voters stay")
        boolean force;

        @Override
        long defaultTimeoutMs()
        {
            return 600_000;
        }

        @Override
        String command()
        {
            return "remove-node " + node + (force ? " force" : "");
        }
    }

    @Command(name = "rebalance", mixinStandardHelpOptions = true,
        description = "Even out how many slots each live node is primary of: one move at a time, the target catches " +
            "up as a learner, then becomes primary at the next epoch. --plan only lists the moves.")
    static final class Rebalance extends AdminCommand
    {
        @Option(names = "--plan", description = "list the moves, change nothing")
        boolean plan;

        @Override
        long defaultTimeoutMs()
        {
            return 600_000;
        }

        @Override
        String command()
        {
            return plan ? "rebalance plan" : "rebalance";
        }
    }
}

package io.rdmakv.cli.cluster;

import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code rdmakv cluster add-voter | remove-voter | replace-voter}: change the coordination group's voters online,
 * one voter per step, through Ratis's own membership change (a new voter catches up before it counts).
 *
 * <pre>
 *   rdmakv cluster add-node --server S --node-id 4 --port 7430 --data-dir ./cluster/node-4 --raft-port 7432
 *   rdmakv cluster replace-voter --server S --node 3 --with 4 --raft-address 127.0.0.1:7432
 * </pre>
 */
final class VoterCommands
{
    /** A new voter's catch-up and two joint-consensus commits, on a loaded host. */
    static final long VOTER_CHANGE_TIMEOUT_MS = 120_000;

    private VoterCommands()
    {
    }

    /** A voter change: an ADMIN command that waits out a catch-up and two joint-consensus commits. */
    abstract static class VoterCommand extends ClusterCommand.AdminCommand
    {
        @Override
        long defaultTimeoutMs()
        {
            return VOTER_CHANGE_TIMEOUT_MS;
        }
    }

    @Command(name = "add-voter", mixinStandardHelpOptions = true,
        description = "A running member with a Raft server (started with --raft-port, or cluster.raftPort) becomes a " +
            "voter of the coordination group: Ratis catches it up, then commits the new voters.")
    static final class AddVoter extends VoterCommand
    {
        @Option(names = "--node", required = true, description = "the member")
        int node;

        @Option(names = "--raft-address", paramLabel = "HOST:PORT", required = true,
            description = "where its Raft server listens")
        String raftAddress;

        @Override
        String command()
        {
            return "add-voter " + node + " " + raftAddress;
        }
    }

    @Command(name = "remove-voter", mixinStandardHelpOptions = true,
        description = "A voter leaves the coordination group (its Raft server stops; the node stays a member). " +
            "Refused when fewer than 3 voters would stay (unless --force) or when a majority of the voters before " +
            "or after the change is not live.")
    static final class RemoveVoter extends VoterCommand
    {
        @Option(names = "--node", required = true, description = "the voter")
        int node;

        @Option(names = "--force", description = "also when fewer than 3 voters stay")
        boolean force;

        @Override
        String command()
        {
            return "remove-voter " + node + (force ? " force" : "");
        }
    }

    @Command(name = "replace-voter", mixinStandardHelpOptions = true,
        description = "Replace a voter (e.g. one whose machine died for good) by a running member with a Raft " +
            "server: add-voter, then remove-voter, so the group keeps its size and its fault tolerance.")
    static final class ReplaceVoter extends VoterCommand
    {
        @Option(names = "--node", required = true, description = "the voter to replace")
        int node;

        @Option(names = "--with", required = true, description = "the member that becomes a voter")
        int with;

        @Option(names = "--raft-address", paramLabel = "HOST:PORT", required = true,
            description = "where the new voter's Raft server listens")
        String raftAddress;

        @Option(names = "--force", description = "also when fewer than 3 voters stay")
        boolean force;

        @Override
        String command()
        {
            return "replace-voter " + node + " " + with + " " + raftAddress + (force ? " force" : "");
        }
    }
}

package io.rdmakv.server.cluster.ratis;

import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.server.config.ClusterSettings;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Changing the coordination group's voters, one voter per step: the rules a change must pass, each step's voter list,
 * and carrying the steps out ({@link RatisClusterView#changeVoters}: Ratis's setConfiguration, then SET_VOTERS).
 *
 * <pre>
 *   add-voter N HOST:PORT               N is a live member (started with cluster.raftPort), not yet a voter
 *   remove-voter N [force]              N is a voter; at least 3 voters stay (with force: at least 1)
 *   replace-voter OLD N HOST:PORT       add N, then remove OLD (the count stays)
 *   every step: a majority of the voters before it and a majority of those after it are live (joint consensus needs
 *   both); live = a member not declared failed in the newest committed state
 * </pre>
 */
final class VoterChanges
{
    /** Fewer voters than this stop the group at the next failure: only with force. */
    static final int SAFE_VOTERS = 3;

    private VoterChanges()
    {
    }

    /** The voters after adding {@code added}; IllegalArgumentException saying why not. */
    static List<ClusterSettings.Voter> add(final List<ClusterSettings.Voter> voters, final CoordState state,
        final ClusterSettings.Voter added)
    {
        final int id = added.nodeId();
        if (contains(voters, id))
        {
            throw new IllegalArgumentException("node " + id + " is a voter already (voters " + text(voters) + ")");
        }
        for (final ClusterSettings.Voter v : voters)
        {
            if (v.address().equals(added.address()))
            {
                throw new IllegalArgumentException("Raft address " + added.address() + " is voter " + v.nodeId() + "'s");
            }
        }
        if (!live(state, id))
        {
            throw new IllegalArgumentException("node " + id + " is not a live member: start it with a Raft port " +
                "(rdmakv cluster add-node --raft-port, or cluster.raftPort) and let it join first");
        }
        final List<ClusterSettings.Voter> next = new ArrayList<>(voters);
        next.add(added);
        return checked(voters, GroupClient.sorted(next), state);
    }

    /** The voters after removing {@code nodeId}; IllegalArgumentException saying why not. */
    static List<ClusterSettings.Voter> remove(final List<ClusterSettings.Voter> voters, final CoordState state,
        final int nodeId, final boolean force)
    {
        if (!contains(voters, nodeId))
        {
            throw new IllegalArgumentException("node " + nodeId + " is not a voter (voters " + text(voters) + ")");
        }
        final List<ClusterSettings.Voter> next = new ArrayList<>();
        for (final ClusterSettings.Voter v : voters)
        {
            if (v.nodeId() != nodeId)
            {
                next.add(v);
            }
        }
        if (next.isEmpty())
        {
            throw new IllegalArgumentException("node " + nodeId + " is the only voter: the group cannot lose it");
        }
        if (next.size() < SAFE_VOTERS && !force)
        {
            throw new IllegalArgumentException("removing voter " + nodeId + " leaves " + next.size() + " voter(s): " +
                "one more failure would stop the group; add a voter first (replace-voter), or force it");
        }
        return checked(voters, GroupClient.sorted(next), state);
    }

    /** The two steps of replacing {@code old} by {@code added}: the voters after each. */
    static List<List<ClusterSettings.Voter>> replace(final List<ClusterSettings.Voter> voters,
        final CoordState state, final int old, final ClusterSettings.Voter added, final boolean force)
    {
        if (!contains(voters, old))
        {
            throw new IllegalArgumentException("node " + old + " is not a voter (voters " + text(voters) + ")");
        }
        final List<ClusterSettings.Voter> grown = add(voters, state, added);
        return List.of(grown, remove(grown, state, old, force));
    }

    /** Whether {@code nodeId} counts as live: a member the group has not declared failed. */
    static boolean live(final CoordState state, final int nodeId)
    {
        return state.cluster().member(nodeId) != null && !state.isFailed(nodeId);
    }

    static boolean contains(final List<ClusterSettings.Voter> voters, final int nodeId)
    {
        return voters.stream().anyMatch(v -> v.nodeId() == nodeId);
    }

    /** {@code id@host:port,...} as in {@code cluster.voters}. */
    static String text(final List<ClusterSettings.Voter> voters)
    {
        final StringBuilder b = new StringBuilder();
        for (final ClusterSettings.Voter v : voters)
        {
            b.append(b.length() == 0 ? "" : ",").append(v.nodeId()).append('@').append(v.address());
        }
        return b.toString();
    }

    private static List<ClusterSettings.Voter> checked(final List<ClusterSettings.Voter> before,
        final List<ClusterSettings.Voter> after, final CoordState state)
    {
        for (final List<ClusterSettings.Voter> conf : List.of(before, after))
        {
            final List<Integer> down = new ArrayList<>();
            for (final ClusterSettings.Voter v : conf)
            {
                if (!live(state, v.nodeId()))
                {
                    down.add(v.nodeId());
                }
            }
            if (conf.size() - down.size() <= conf.size() / 2)
            {
                throw new IllegalArgumentException("no quorum: of the voters " + text(conf) + ", " + down + " are not " +
                    "live (not members, or declared failed); Ratis commits a change only with a majority of the " +
                    "voters before it and of those after it");
            }
        }
        return after;
    }

    /** Carry out {@code steps} (each the whole voter list after it) one after another; the operator's answer. */
    static CompletableFuture<AdminReply> run(final RatisClusterView view, final List<List<ClusterSettings.Voter>> steps)
    {
        CompletableFuture<String> done = CompletableFuture.completedFuture("");
        for (final List<ClusterSettings.Voter> step : steps)
        {
            done = done.thenCompose(log -> view.changeVoters(step).thenApply(reply -> log + "voters " + text(step) +
                " committed at epoch " + reply.state().cluster().epoch() + "\n"));
        }
        return done.handle((log, failure) -> failure == null ? new AdminReply(true, log.trim()) :
            new AdminReply(false, "voter change failed: " + cause(failure).getMessage()));
    }

    private static Throwable cause(final Throwable failure)
    {
        return failure instanceof CompletionException && failure.getCause() != null ? failure.getCause() : failure;
    }
}

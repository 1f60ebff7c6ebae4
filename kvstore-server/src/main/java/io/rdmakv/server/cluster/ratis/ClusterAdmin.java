package io.rdmakv.server.cluster.ratis;

import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.server.cluster.ClusterJson;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.config.ClusterSettings;
import io.rdmakv.server.config.ConfigException;
import io.rdmakv.server.control.AdminCommands;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;

/**
 * The operator's commands on one node ({@code rdmakv cluster ...} sends them as ADMIN frames):
 *
 * <pre>
 *   status [json]                   members, roles, leases, ranges with epochs, primaries, backups, learners
 *   json COMMAND ...                any command answered in JSON (status as StatusReport, lag as it is, the others
 *                                   as an AdminOutcome: ok, error, and the epoch, ranges and voters after it)
 *   lag                             JSON: per replica this node sends writes to, writes sent, answered, outstanding
 *   failover SLOT NODE              the in-sync backup NODE becomes primary of the range starting at SLOT
 *   failover-node NODE              every range NODE is primary of fails over to its first in-sync backup
 *   move FIRST LAST NODE            resharding step 1: [FIRST, LAST] gets NODE as a learner (MIGRATING)
 *   finish-move FIRST NODE          step 2, once NODE is in sync: NODE becomes primary at the next epoch
 *   remove-node NODE [force]        drain NODE (move each of its replicas to another live member, losslessly:
 *                                   catch-up first), then remove it from the members and, if a voter, from the group
 *   rebalance [plan]                even out primaries by moves (learner, catch-up, new primary); plan: list them
 *   voters                          the group's voters as this node knows them
 *   add-voter NODE HOST:PORT        the live member NODE (with a Raft server at HOST:PORT) becomes a voter
 *   remove-voter NODE [force]       NODE leaves the group's voters (force: even below 3)
 *   replace-voter OLD NODE HOST:PORT [force]   add NODE, then remove OLD (see VoterChanges for the rules)
 * </pre>
 *
 * Commands that change the configuration are committed through the Ratis group; a static node answers status only.
 */
public final class ClusterAdmin implements AdminCommands
{
    /** How long one move waits for its target to catch up before the rebalance stops (the range stays MIGRATING). */
    static final long CATCH_UP_TIMEOUT_MILLIS = 120_000;

    private final ClusterView view;
    private final Supplier<String> lagJson;

    /** Commands on a node without replication state ({@code lag} answers no replicas). */
    public ClusterAdmin(final ClusterView view)
    {
        this(view, () -> ClusterJson.write(new ClusterJson.Lag(view.localNodeId(), List.of())));
    }

    /**
     * @param lagJson this node's replication lag per replica it sends writes to, as JSON (the {@code lag} command).
     */
    public ClusterAdmin(final ClusterView view, final Supplier<String> lagJson)
    {
        this.view = view;
        this.lagJson = lagJson;
    }

    @Override
    public CompletableFuture<AdminReply> run(final String command)
    {
        final String[] w = command.trim().split("\\s+");
        if (w[0].equalsIgnoreCase("json"))
        {
            return json(Arrays.copyOfRange(w, 1, w.length));
        }
        return run(w);
    }

    /** {@code w} answered in JSON: status and lag as their own documents, the other commands as an outcome. */
    private CompletableFuture<AdminReply> json(final String[] w)
    {
        if (w.length == 0)
        {
            return CompletableFuture.completedFuture(AdminOutcome.of("json", new AdminReply(false,
                "usage: json COMMAND ..."), null, view, null));
        }
        final String name = w[0].toLowerCase(Locale.ROOT);
        if (name.equals("status") || name.equals("lag"))
        {
            return name.equals("status") ? status(true) : run(w);
        }
        final List<AdminOutcome.Move> plan = name.equals("rebalance") && w.length > 1 &&
            w[1].equalsIgnoreCase("plan") && view instanceof RatisClusterView ratis ?
            AdminOutcome.moves(Rebalancer.plan(ratis.coordState())) : null;
        return run(w).handle((reply, failure) -> AdminOutcome.of(name, reply, failure, view, plan));
    }

    private CompletableFuture<AdminReply> run(final String[] w)
    {
        try
        {
            switch (w[0].toLowerCase(Locale.ROOT))
            {
                case "status":
                    return status(w.length > 1 && w[1].equalsIgnoreCase("json"));
                case "lag":
                    return CompletableFuture.completedFuture(new AdminReply(true, lagJson.get()));
                case "failover":
                    need(w, 3, "failover SLOT NODE");
                    return commit(new ClusterCommand.Failover(number(w[1]), number(w[2])));
                case "failover-node":
                    need(w, 2, "failover-node NODE");
                    return failoverNode(number(w[1]));
                case "move":
                    need(w, 4, "move FIRST LAST NODE");
                    return commit(new ClusterCommand.BeginMove(number(w[1]), number(w[2]), number(w[3])));
                case "finish-move":
                    need(w, 3, "finish-move FIRST NODE");
                    return commit(new ClusterCommand.FinishMove(number(w[1]), number(w[2])));
                case "rebalance":
                    return rebalance(w.length > 1 && w[1].equalsIgnoreCase("plan"));
                case "remove-node":
                    return removeNode(number(optionalForce(w, 2, "remove-node NODE [force]")[1]), forced(w, 2));
                case "voters":
                    return CompletableFuture.completedFuture(new AdminReply(true, view instanceof RatisClusterView r ?
                        VoterChanges.text(r.voters()) : "none: this node runs a static cluster map"));
                case "add-voter":
                    need(w, 3, "add-voter NODE HOST:PORT");
                    return changeVoters(r -> List.of(VoterChanges.add(r.voters(), r.coordState(),
                        voter(number(w[1]), w[2]))));
                case "remove-voter":
                    optionalForce(w, 2, "remove-voter NODE [force]");
                    return changeVoters(r -> List.of(VoterChanges.remove(r.voters(), r.coordState(), number(w[1]),
                        forced(w, 2))));
                case "replace-voter":
                    optionalForce(w, 4, "replace-voter OLD NODE HOST:PORT [force]");
                    return changeVoters(r -> VoterChanges.replace(r.voters(), r.coordState(), number(w[1]),
                        voter(number(w[2]), w[3]), forced(w, 4)));
                default:
                    return refuse("unknown command '" + w[0] + "'; known: status [json], lag, failover SLOT NODE, " +
                        "failover-node NODE, move FIRST LAST NODE, finish-move FIRST NODE, remove-node NODE [force], " +
                        "rebalance [plan], voters, add-voter NODE HOST:PORT, remove-voter NODE [force], " +
                        "replace-voter OLD NODE HOST:PORT [force]");
            }
        }
        catch (final IllegalArgumentException | ConfigException ex)
        {
            return refuse(ex.getMessage());
        }
    }

    /**
     * Check a change of the voters against the newest committed state (read through the leader, which also shows the
     * group answers) and carry out its steps.
     */
    private CompletableFuture<AdminReply> changeVoters(
        final java.util.function.Function<RatisClusterView, List<List<ClusterSettings.Voter>>> plan)
    {
        if (!(view instanceof RatisClusterView ratis))
        {
            return refuse("this node runs a static cluster map (no cluster.voters): it has no voters to change");
        }
        return ratis.query().handle((fresh, failure) -> failure).thenCompose(failure ->
        {
            if (failure != null)
            {
                return refuse("the coordination group did not answer (no quorum?): " + failure.getMessage());
            }
            final List<List<ClusterSettings.Voter>> steps;
            try
            {
                steps = plan.apply(ratis);
            }
            catch (final IllegalArgumentException ex)
            {
                return refuse("refused: " + ex.getMessage());
            }
            return VoterChanges.run(ratis, steps);
        });
    }

    private static ClusterSettings.Voter voter(final int nodeId, final String hostPort)
    {
        return ClusterSettings.parseVoters(nodeId + "@" + hostPort).get(0);
    }

    /** {@code words} are the command and its {@code count - 1} arguments, and optionally the word force. */
    private static String[] optionalForce(final String[] words, final int count, final String usage)
    {
        if (words.length != count && !(words.length == count + 1 && words[count].equalsIgnoreCase("force")))
        {
            throw new IllegalArgumentException("usage: " + usage);
        }
        return words;
    }

    private static boolean forced(final String[] words, final int count)
    {
        return words.length == count + 1;
    }

    private CompletableFuture<AdminReply> commit(final ClusterCommand command)
    {
        if (!(view instanceof RatisClusterView ratis))
        {
            return refuse("this node runs a static cluster map (no cluster.voters): nothing can change it");
        }
        return ratis.submit(command).thenApply(reply -> reply.accepted() ?
            new AdminReply(true, "committed at epoch " + reply.state().cluster().epoch() + handover(reply.state())) :
            new AdminReply(false, "refused: " + reply.refusal()));
    }

    /** What a committed hand-over still waits for (a failover or a move's cut-over leaves the range FENCED). */
    private static String handover(final CoordState state)
    {
        final StringBuilder text = new StringBuilder();
        for (final Map.Entry<Integer, Integer> h : state.handoffs().entrySet())
        {
            final SlotRange r = state.cluster().rangeOf(h.getKey());
            text.append("; slots ").append(r.firstSlot()).append('-').append(r.lastSlot()).append(" FENCED at node ")
                .append(r.primary()).append(" until node ").append(h.getValue()).append(" releases them (at once ")
                .append("when it runs; when its lease ran out otherwise)");
        }
        return text.toString();
    }

    /** Plan, and unless {@code planOnly} carry out, the moves that even out primaries (off the caller's thread). */
    private CompletableFuture<AdminReply> rebalance(final boolean planOnly)
    {
        if (!(view instanceof RatisClusterView ratis))
        {
            return refuse("this node runs a static cluster map (no cluster.voters): nothing can change it");
        }
        final List<ClusterCommand.BeginMove> moves = Rebalancer.plan(ratis.coordState());
        if (planOnly || moves.isEmpty())
        {
            final StringBuilder text = new StringBuilder(moves.isEmpty() ? "balanced: nothing to move" : "");
            for (final ClusterCommand.BeginMove m : moves)
            {
                text.append("move ").append(m.firstSlot()).append('-').append(m.lastSlot()).append(" to node ")
                    .append(m.target()).append('\n');
            }
            return CompletableFuture.completedFuture(new AdminReply(true, text.toString().trim()));
        }
        final CompletableFuture<AdminReply> done = new CompletableFuture<>();
        final Thread mover = new Thread(() ->
        {
            try
            {
                final String log = Rebalancer.run(ratis, moves, CATCH_UP_TIMEOUT_MILLIS);
                done.complete(new AdminReply(!log.contains("refused") && !log.contains("did not"), log));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                done.complete(new AdminReply(false, "interrupted"));
            }
            catch (final RuntimeException ex)
            {
                done.complete(new AdminReply(false, "rebalance failed: " + ex.getMessage()));
            }
        }, "rdmakv-rebalance");
        mover.setDaemon(true);
        mover.start();
        return done;
    }

    /**
     * Drain {@code nodeId} and remove it, from the voters too when it is one (off the caller's thread: each move waits
     * for a catch-up). A voter whose removal the rules refuse is refused before anything moves.
     */
    private CompletableFuture<AdminReply> removeNode(final int nodeId, final boolean force)
    {
        if (!(view instanceof RatisClusterView ratis))
        {
            return refuse("this node runs a static cluster map (no cluster.voters): nothing can change it");
        }
        final boolean isVoter = VoterChanges.contains(ratis.voters(), nodeId);
        if (isVoter)
        {
            VoterChanges.remove(ratis.voters(), ratis.coordState(), nodeId, force);
        }
        final CompletableFuture<AdminReply> done = new CompletableFuture<>();
        final Thread drainer = new Thread(() ->
        {
            try
            {
                final String log = Drainer.run(ratis, nodeId, CATCH_UP_TIMEOUT_MILLIS);
                if (!isVoter || !log.contains("removed node " + nodeId))
                {
                    done.complete(new AdminReply(log.contains("removed node " + nodeId), log));
                    return;
                }
                // No longer a member, so not live: the rules are checked again on the state after the drain.
                final List<ClusterSettings.Voter> next = VoterChanges.remove(ratis.voters(), ratis.coordState(),
                    nodeId, force);
                final AdminReply voters = VoterChanges.run(ratis, List.of(next)).join();
                done.complete(new AdminReply(voters.ok(), log + "\n" + voters.text()));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                done.complete(new AdminReply(false, "interrupted"));
            }
            catch (final RuntimeException ex)
            {
                done.complete(new AdminReply(false, "remove-node failed: " + ex.getMessage()));
            }
        }, "rdmakv-drain");
        drainer.setDaemon(true);
        drainer.start();
        return done;
    }

    private CompletableFuture<AdminReply> failoverNode(final int nodeId)
    {
        final List<CompletableFuture<AdminReply>> steps = new ArrayList<>();
        for (final SlotRange r : view.current().ranges())
        {
            if (r.primary() == nodeId)
            {
                if (r.backups().isEmpty())
                {
                    return refuse("range " + r.firstSlot() + "-" + r.lastSlot() + " has no in-sync backup");
                }
                steps.add(commit(new ClusterCommand.Failover(r.firstSlot(), r.backups().get(0))));
            }
        }
        if (steps.isEmpty())
        {
            return refuse("node " + nodeId + " is primary of no range");
        }
        return CompletableFuture.allOf(steps.toArray(CompletableFuture[]::new)).thenApply(done ->
        {
            final StringBuilder text = new StringBuilder();
            boolean ok = true;
            for (final CompletableFuture<AdminReply> step : steps)
            {
                ok &= step.join().ok();
                text.append(step.join().text()).append('\n');
            }
            return new AdminReply(ok, text.toString().trim());
        });
    }

    private CompletableFuture<AdminReply> status(final boolean json)
    {
        final CoordState coord = view instanceof RatisClusterView r ? r.coordState() :
            new CoordState(view.current(), java.util.Map.of(), java.util.Set.of(), 1, 0, java.util.Map.of());
        final RatisClusterView ratis = view instanceof RatisClusterView r ? r : null;
        return CompletableFuture.completedFuture(new AdminReply(true, json ?
            StatusReport.json(coord, view, ratis) : StatusReport.text(coord, view, ratis)));
    }

    private static void need(final String[] words, final int count, final String usage)
    {
        if (words.length != count)
        {
            throw new IllegalArgumentException("usage: " + usage);
        }
    }

    private static int number(final String word)
    {
        try
        {
            return Integer.parseInt(word);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("not a number: '" + word + "'");
        }
    }

    private static CompletableFuture<AdminReply> refuse(final String why)
    {
        return CompletableFuture.completedFuture(new AdminReply(false, why));
    }
}

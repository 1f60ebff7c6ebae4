package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.config.ClusterSettings;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The coordinator's decisions as a pure function: state + command -> next state, or a refusal that leaves the state
 * as it was. Deterministic (no clock, no randomness), so every voter that applies the same log holds the same state.
 *
 * <p>Every change of the configuration raises the cluster epoch by one, and every range it touches takes the new
 * epoch as its own: range epochs are unique per change and only rise. Lease renewals are counted but change no epoch.
 */
public final class ClusterTransitions
{
    private ClusterTransitions()
    {
    }

    /**
     * The result of one command.
     *
     * @param state   the state after it (the same object when refused or when it changed nothing).
     * @param refusal why it was refused, or null.
     */
    public record Outcome(CoordState state, String refusal)
    {
        public boolean accepted()
        {
            return refusal == null;
        }
    }

    /** Apply {@code command} to {@code state}. */
    public static Outcome apply(final CoordState state, final ClusterCommand command)
    {
        if (command instanceof ClusterCommand.Join j)
        {
            return join(state, j);
        }
        if (command instanceof ClusterCommand.Renew r)
        {
            return renew(state, r);
        }
        if (command instanceof ClusterCommand.FailNode f)
        {
            return failNode(state, f);
        }
        if (command instanceof ClusterCommand.RemoveFromInSync r)
        {
            return removeFromInSync(state, r);
        }
        if (command instanceof ClusterCommand.PromoteLearner p)
        {
            return promoteLearner(state, p);
        }
        if (command instanceof ClusterCommand.Failover f)
        {
            return failover(state, f);
        }
        if (command instanceof ClusterCommand.BeginMove m)
        {
            return beginMove(state, m);
        }
        if (command instanceof ClusterCommand.FinishMove m)
        {
            return finishMove(state, m);
        }
        if (command instanceof ClusterCommand.AddReplica a)
        {
            return addReplica(state, a);
        }
        if (command instanceof ClusterCommand.DropReplica d)
        {
            return dropReplica(state, d);
        }
        if (command instanceof ClusterCommand.ReleaseRange r)
        {
            return releaseRange(state, r);
        }
        if (command instanceof ClusterCommand.SetVoters v)
        {
            return setVoters(state, v);
        }
        return removeMember(state, (ClusterCommand.RemoveMember)command);
    }

    private static Outcome join(final CoordState s, final ClusterCommand.Join j)
    {
        final ClusterState c = s.cluster();
        final ClusterMember m = j.member();
        final int initialNodes = s.initialNodes() == 0 ? Math.max(1, j.initialNodes()) : s.initialNodes();
        final int replicas = s.initialNodes() == 0 ? Math.max(0, j.replicas()) : s.replicas();
        final ClusterMember known = c.member(m.nodeId());
        final boolean wasFailed = s.isFailed(m.nodeId());
        if (m.equals(known) && !wasFailed && !(c.ranges().isEmpty() && c.members().size() >= initialNodes))
        {
            return ok(s); // a repeated join: nothing to change
        }
        final long epoch = c.epoch() + 1;
        final List<ClusterMember> members = new ArrayList<>();
        for (final ClusterMember other : c.members())
        {
            if (other.nodeId() != m.nodeId())
            {
                members.add(other);
            }
        }
        members.add(m);
        members.sort(Comparator.comparingInt(ClusterMember::nodeId));
        List<SlotRange> ranges = c.ranges();
        if (ranges.isEmpty() && members.size() >= initialNodes)
        {
            ranges = layout(members, replicas, epoch);
        }
        else if (wasFailed)
        {
            ranges = rejoin(ranges, m.nodeId(), replicas, epoch, s.handoffs());
        }
        final Set<Integer> failed = new HashSet<>(s.failed());
        failed.remove(m.nodeId());
        return ok(new CoordState(new ClusterState(epoch, members, ranges), s.renewals(), failed, initialNodes,
            replicas, s.handoffs(), s.voters()));
    }

    /** Slots split evenly over the members in id order; range i has member i as primary and the next ones as backups. */
    static List<SlotRange> layout(final List<ClusterMember> members, final int replicas, final long epoch)
    {
        final int n = members.size();
        final int backups = Math.min(replicas, n - 1);
        final List<SlotRange> ranges = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            final int first = (int)((long)ClusterState.HASH_SLOT_COUNT * i / n);
            final int last = (int)((long)ClusterState.HASH_SLOT_COUNT * (i + 1) / n) - 1;
            final List<Integer> b = new ArrayList<>(backups);
            for (int k = 1; k <= backups; k++)
            {
                b.add(members.get((i + k) % n).nodeId());
            }
            ranges.add(new SlotRange(first, last, epoch, members.get(i).nodeId(), b, List.of(), SlotRange.State.LIVE));
        }
        return ranges;
    }

    /**
     * A failed node comes back: ranges it is still primary of (no backup took them) serve again; ranges short of
     * replicas take it as a learner, to catch up before it counts.
     */
    private static List<SlotRange> rejoin(final List<SlotRange> ranges, final int nodeId, final int replicas,
        final long epoch, final Map<Integer, Integer> handoffs)
    {
        final List<SlotRange> next = new ArrayList<>(ranges.size());
        for (final SlotRange r : ranges)
        {
            if (r.primary() == nodeId && r.state() == SlotRange.State.FENCED && !handoffs.containsKey(r.firstSlot()))
            {
                next.add(with(r, epoch, r.primary(), r.backups(), r.learners(), SlotRange.State.LIVE));
            }
            else if (!r.hasReplica(nodeId) && r.backups().size() + r.learners().size() < replicas)
            {
                next.add(with(r, epoch, r.primary(), r.backups(), plus(r.learners(), nodeId), r.state()));
            }
            else
            {
                next.add(r);
            }
        }
        return next;
    }

    private static Outcome renew(final CoordState s, final ClusterCommand.Renew r)
    {
        if (s.cluster().member(r.nodeId()) == null)
        {
            return refuse(s, "node " + r.nodeId() + " is not a member: join first");
        }
        if (s.isFailed(r.nodeId()))
        {
            return refuse(s, "node " + r.nodeId() + " was declared failed: rejoin first");
        }
        final Map<Integer, Long> renewals = new HashMap<>(s.renewals());
        renewals.merge(r.nodeId(), 1L, Long::sum);
        return ok(new CoordState(s.cluster(), renewals, s.failed(), s.initialNodes(), s.replicas(), s.handoffs(),
            s.voters()));
    }

    private static Outcome failNode(final CoordState s, final ClusterCommand.FailNode f)
    {
        final int n = f.nodeId();
        if (s.cluster().member(n) == null || s.isFailed(n))
        {
            return refuse(s, "node " + n + " is not a live member");
        }
        if (s.renewalsOf(n) != f.renewalsSeen())
        {
            return refuse(s, "node " + n + " renewed its lease meanwhile (" + s.renewalsOf(n) + " renewals, the " +
                "decision saw " + f.renewalsSeen() + ")");
        }
        final ClusterState c = s.cluster();
        final long epoch = c.epoch() + 1;
        final List<SlotRange> ranges = new ArrayList<>(c.ranges().size());
        final Map<Integer, Integer> handoffs = new HashMap<>(s.handoffs());
        for (final SlotRange r : c.ranges())
        {
            final Integer releasing = handoffs.get(r.firstSlot());
            if (releasing != null && releasing == n)
            {
                // The old primary of a moved range is surely stopped (its lease is over): the new primary serves.
                handoffs.remove(r.firstSlot());
                ranges.add(with(r, epoch, r.primary(), minus(r.backups(), n), minus(r.learners(), n),
                    SlotRange.State.LIVE));
            }
            else if (r.primary() == n)
            {
                // Still FENCED while another node has to release it (a handoff under way).
                ranges.add(r.backups().isEmpty() ?
                    with(r, epoch, n, r.backups(), r.learners(), SlotRange.State.FENCED) :
                    with(r, epoch, r.backups().get(0), r.backups().subList(1, r.backups().size()), r.learners(),
                        releasing == null ? SlotRange.State.LIVE : SlotRange.State.FENCED));
            }
            else if (r.backups().contains(n) || r.learners().contains(n))
            {
                ranges.add(with(r, epoch, r.primary(), minus(r.backups(), n), minus(r.learners(), n), r.state()));
            }
            else
            {
                ranges.add(r);
            }
        }
        final Set<Integer> failed = new HashSet<>(s.failed());
        failed.add(n);
        return ok(new CoordState(new ClusterState(epoch, c.members(), ranges), s.renewals(), failed,
            s.initialNodes(), s.replicas(), handoffs, s.voters()));
    }

    private static Outcome removeFromInSync(final CoordState s, final ClusterCommand.RemoveFromInSync r)
    {
        final SlotRange range = rangeAt(s, r.firstSlot());
        final String why = checkPrimaryRequest(range, r.firstSlot(), r.rangeEpoch(), r.requester());
        if (why != null)
        {
            return refuse(s, why);
        }
        if (!range.backups().contains(r.nodeId()))
        {
            return refuse(s, "node " + r.nodeId() + " is not an in-sync backup of " + range);
        }
        final long epoch = s.cluster().epoch() + 1;
        return replace(s, epoch, range, with(range, epoch, range.primary(), minus(range.backups(), r.nodeId()),
            plus(range.learners(), r.nodeId()), range.state()));
    }

    private static Outcome promoteLearner(final CoordState s, final ClusterCommand.PromoteLearner p)
    {
        final SlotRange range = rangeAt(s, p.firstSlot());
        final String why = checkPrimaryRequest(range, p.firstSlot(), p.rangeEpoch(), p.requester());
        if (why != null)
        {
            return refuse(s, why);
        }
        if (!range.learners().contains(p.nodeId()))
        {
            return refuse(s, "node " + p.nodeId() + " is not a learner of " + range);
        }
        final long epoch = s.cluster().epoch() + 1;
        return replace(s, epoch, range, with(range, epoch, range.primary(), plus(range.backups(), p.nodeId()),
            minus(range.learners(), p.nodeId()), range.state()));
    }

    private static Outcome failover(final CoordState s, final ClusterCommand.Failover f)
    {
        final SlotRange range = rangeAt(s, f.firstSlot());
        if (range == null)
        {
            return refuse(s, "no range starts at slot " + f.firstSlot());
        }
        if (range.primary() == f.target())
        {
            return refuse(s, "node " + f.target() + " is already the primary of " + range);
        }
        if (s.handoffs().containsKey(range.firstSlot()))
        {
            return refuse(s, range + " is being handed over (its old primary has not released it yet)");
        }
        if (!range.backups().contains(f.target()))
        {
            return refuse(s, "node " + f.target() + " is not an in-sync backup of " + range + ": it may miss writes");
        }
        final long epoch = s.cluster().epoch() + 1;
        final List<Integer> backups = minus(range.backups(), f.target());
        if (s.isFailed(range.primary()))
        {
            return replace(s, epoch, range, with(range, epoch, f.target(), backups, range.learners(),
                SlotRange.State.LIVE));
        }
        // The old primary is alive: FENCED until it released the range (its routing and ownership words no longer
        // serve it), as at a resharding cut-over. It stays as a learner, not an in-sync backup: it may hold a write it
        // applied and never had acknowledged, so it catches up from the new primary before it counts again.
        final Map<Integer, Integer> handoffs = new HashMap<>(s.handoffs());
        handoffs.put(range.firstSlot(), range.primary());
        return replace(s.withHandoffs(handoffs), epoch, range, with(range, epoch, f.target(), backups,
            plus(range.learners(), range.primary()), SlotRange.State.FENCED));
    }

    private static Outcome beginMove(final CoordState s, final ClusterCommand.BeginMove m)
    {
        final ClusterState c = s.cluster();
        if (m.firstSlot() < 0 || m.lastSlot() < m.firstSlot() || m.lastSlot() >= ClusterState.HASH_SLOT_COUNT)
        {
            return refuse(s, "slot range [" + m.firstSlot() + ", " + m.lastSlot() + "]");
        }
        final SlotRange range = c.ranges().isEmpty() ? null : c.rangeOf(m.firstSlot());
        if (range == null || m.lastSlot() > range.lastSlot())
        {
            return refuse(s, "[" + m.firstSlot() + ", " + m.lastSlot() + "] is not within one range");
        }
        if (c.member(m.target()) == null || s.isFailed(m.target()))
        {
            return refuse(s, "node " + m.target() + " is not a live member");
        }
        if (range.hasReplica(m.target()) || range.state() != SlotRange.State.LIVE)
        {
            return refuse(s, "node " + m.target() + " already holds " + range + ", or it is not LIVE");
        }
        final long epoch = c.epoch() + 1;
        final List<SlotRange> ranges = new ArrayList<>();
        for (final SlotRange r : c.ranges())
        {
            if (r != range)
            {
                ranges.add(r);
                continue;
            }
            if (r.firstSlot() < m.firstSlot())
            {
                ranges.add(new SlotRange(r.firstSlot(), m.firstSlot() - 1, epoch, r.primary(), r.backups(),
                    r.learners(), r.state()));
            }
            ranges.add(new SlotRange(m.firstSlot(), m.lastSlot(), epoch, r.primary(), r.backups(),
                plus(r.learners(), m.target()), SlotRange.State.MIGRATING));
            if (m.lastSlot() < r.lastSlot())
            {
                ranges.add(new SlotRange(m.lastSlot() + 1, r.lastSlot(), epoch, r.primary(), r.backups(),
                    r.learners(), r.state()));
            }
        }
        return ok(new CoordState(new ClusterState(epoch, c.members(), ranges), s.renewals(), s.failed(),
            s.initialNodes(), s.replicas(), s.handoffs(), s.voters()));
    }

    private static Outcome finishMove(final CoordState s, final ClusterCommand.FinishMove m)
    {
        final SlotRange range = rangeAt(s, m.firstSlot());
        if (range == null || range.state() != SlotRange.State.MIGRATING)
        {
            return refuse(s, "no range being moved starts at slot " + m.firstSlot());
        }
        if (!range.backups().contains(m.target()))
        {
            return refuse(s, "node " + m.target() + " has not caught up with " + range + " (not in sync yet)");
        }
        // FENCED until the old primary released it: nobody serves it in between (the cut-over).
        final long epoch = s.cluster().epoch() + 1;
        final Map<Integer, Integer> handoffs = new HashMap<>(s.handoffs());
        handoffs.put(range.firstSlot(), range.primary());
        return replace(s.withHandoffs(handoffs), epoch, range, with(range, epoch, m.target(),
            minus(range.backups(), m.target()), range.learners(), SlotRange.State.FENCED));
    }

    private static Outcome releaseRange(final CoordState s, final ClusterCommand.ReleaseRange r)
    {
        final SlotRange range = rangeAt(s, r.firstSlot());
        final Integer releasing = s.handoffs().get(r.firstSlot());
        if (range == null || releasing == null || releasing != r.nodeId())
        {
            return refuse(s, "node " + r.nodeId() + " has no range starting at " + r.firstSlot() + " to release");
        }
        final long epoch = s.cluster().epoch() + 1;
        final Map<Integer, Integer> handoffs = new HashMap<>(s.handoffs());
        handoffs.remove(r.firstSlot());
        return replace(s.withHandoffs(handoffs), epoch, range, with(range, epoch, range.primary(), range.backups(),
            range.learners(), s.isFailed(range.primary()) ? range.state() : SlotRange.State.LIVE));
    }

    private static Outcome addReplica(final CoordState s, final ClusterCommand.AddReplica a)
    {
        final SlotRange range = rangeAt(s, a.firstSlot());
        if (range == null)
        {
            return refuse(s, "no range starts at slot " + a.firstSlot());
        }
        if (s.cluster().member(a.nodeId()) == null || s.isFailed(a.nodeId()))
        {
            return refuse(s, "node " + a.nodeId() + " is not a live member");
        }
        if (range.hasReplica(a.nodeId()))
        {
            return refuse(s, "node " + a.nodeId() + " already holds " + range);
        }
        final long epoch = s.cluster().epoch() + 1;
        return replace(s, epoch, range, with(range, epoch, range.primary(), range.backups(),
            plus(range.learners(), a.nodeId()), range.state()));
    }

    private static Outcome dropReplica(final CoordState s, final ClusterCommand.DropReplica d)
    {
        final SlotRange range = rangeAt(s, d.firstSlot());
        if (range == null)
        {
            return refuse(s, "no range starts at slot " + d.firstSlot());
        }
        if (range.primary() == d.nodeId())
        {
            return refuse(s, "node " + d.nodeId() + " is the primary of " + range + ": move or fail it over first");
        }
        if (!range.backups().contains(d.nodeId()) && !range.learners().contains(d.nodeId()))
        {
            return refuse(s, "node " + d.nodeId() + " holds no replica of " + range);
        }
        final long epoch = s.cluster().epoch() + 1;
        return replace(s, epoch, range, with(range, epoch, range.primary(), minus(range.backups(), d.nodeId()),
            minus(range.learners(), d.nodeId()), range.state()));
    }

    private static Outcome removeMember(final CoordState s, final ClusterCommand.RemoveMember r)
    {
        final ClusterState c = s.cluster();
        if (c.member(r.nodeId()) == null)
        {
            return refuse(s, "node " + r.nodeId() + " is not a member");
        }
        for (final SlotRange range : c.ranges())
        {
            if (range.hasReplica(r.nodeId()))
            {
                return refuse(s, "node " + r.nodeId() + " still holds " + range + ": move its ranges first");
            }
        }
        if (s.handoffs().containsValue(r.nodeId()))
        {
            return refuse(s, "node " + r.nodeId() + " has not released a range it moved yet: " + s.handoffs());
        }
        final List<ClusterMember> members = new ArrayList<>(c.members());
        members.removeIf(m -> m.nodeId() == r.nodeId());
        final Map<Integer, Long> renewals = new HashMap<>(s.renewals());
        renewals.remove(r.nodeId());
        final Set<Integer> failed = new HashSet<>(s.failed());
        failed.remove(r.nodeId());
        return ok(new CoordState(new ClusterState(c.epoch() + 1, members, c.ranges()), renewals, failed,
            s.initialNodes(), s.replicas(), s.handoffs(), s.voters()));
    }

    private static String checkPrimaryRequest(final SlotRange range, final int firstSlot, final long rangeEpoch,
        final int requester)
    {
        if (range == null)
        {
            return "no range starts at slot " + firstSlot;
        }
        if (range.epoch() != rangeEpoch)
        {
            return "range " + range + " is at epoch " + range.epoch() + ", the request names " + rangeEpoch;
        }
        if (range.primary() != requester)
        {
            return "node " + requester + " is not the primary of " + range;
        }
        return null;
    }

    private static SlotRange rangeAt(final CoordState s, final int firstSlot)
    {
        for (final SlotRange r : s.cluster().ranges())
        {
            if (r.firstSlot() == firstSlot)
            {
                return r;
            }
        }
        return null;
    }

    private static Outcome replace(final CoordState s, final long epoch, final SlotRange old, final SlotRange next)
    {
        final List<SlotRange> ranges = new ArrayList<>(s.cluster().ranges());
        ranges.set(ranges.indexOf(old), next);
        return ok(new CoordState(new ClusterState(epoch, s.cluster().members(), ranges), s.renewals(), s.failed(),
            s.initialNodes(), s.replicas(), s.handoffs(), s.voters()));
    }

    private static SlotRange with(final SlotRange r, final long epoch, final int primary, final List<Integer> backups,
        final List<Integer> learners, final SlotRange.State state)
    {
        return new SlotRange(r.firstSlot(), r.lastSlot(), epoch, primary, backups, learners, state);
    }

    private static List<Integer> plus(final List<Integer> ids, final int id)
    {
        final List<Integer> next = new ArrayList<>(ids);
        next.add(id);
        return next;
    }

    /** The group's voters as Ratis committed them (sorted by id); a change raises the epoch (nodes re-read them). */
    private static Outcome setVoters(final CoordState s, final ClusterCommand.SetVoters v)
    {
        final List<ClusterSettings.Voter> sorted = new ArrayList<>(v.voters());
        sorted.sort(Comparator.comparingInt(ClusterSettings.Voter::nodeId));
        final Set<Integer> ids = new HashSet<>();
        for (final ClusterSettings.Voter voter : sorted)
        {
            if (!ids.add(voter.nodeId()))
            {
                return refuse(s, "voter " + voter.nodeId() + " is named twice");
            }
        }
        if (sorted.isEmpty())
        {
            return refuse(s, "the group needs at least one voter");
        }
        if (sorted.equals(s.voters()))
        {
            return ok(s);
        }
        final ClusterState c = s.cluster();
        return ok(new CoordState(new ClusterState(c.epoch() + 1, c.members(), c.ranges()), s.renewals(), s.failed(),
            s.initialNodes(), s.replicas(), s.handoffs(), sorted));
    }

    private static List<Integer> minus(final List<Integer> ids, final int id)
    {
        final List<Integer> next = new ArrayList<>(ids);
        next.remove(Integer.valueOf(id));
        return next;
    }

    private static Outcome ok(final CoordState s)
    {
        return new Outcome(s, null);
    }

    private static Outcome refuse(final CoordState s, final String why)
    {
        return new Outcome(s, why);
    }
}

package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.config.ClusterSettings;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Bytes of commands (Raft log entries) and of the coordinator's state (snapshots, query answers). Big-endian
 * {@link DataOutputStream} fields, a format version first; decoding is strict: a wrong version, an unknown command
 * or trailing bytes fail with {@link IllegalArgumentException}.
 *
 * <pre>
 *   command: u8 version(1) | u8 type | fields of the type (u32 ints, u64 longs, member = u32 id, UTF host, u16, u16;
 *            a join is type 1, or type 15 when the member has a RESP port, which follows its fields as a u16;
 *            voters = u32 n, n (u32 id, UTF host, u16 raftPort)); a renewal is type 2 (u32 node: answer with the
 *            state) or type 14 (u32 node, u64 the epoch it holds: answer without the state when it is current)
 *   state:   u8 version(2) | u32 initialNodes | u32 replicas | u64 epoch | u32 n, n members
 *            | u32 n, n ranges (u32 first, u32 last, u64 epoch, u32 primary, u32 n backups.., u32 n learners.., u8 state)
 *            | u32 n, n (u32 node, u64 renewals) | u32 n, n failed node ids | u32 n, n (u32 first, u32 node) handoffs
 *            | voters (version 2; a version-1 snapshot has none: the bootstrap list holds)
 *            version 3: each member ends with u16 respPort (0 = none; earlier versions decode with 0)
 * </pre>
 */
public final class CommandCodec
{
    private static final int VERSION = 1;
    /** Version 2 added the voters, 3 the members' RESP ports; version 1 and 2 states (older snapshots) decode. */
    private static final int STATE_VERSION = 3;
    private static final int VOTERS_STATE_VERSION = 2;

    private CommandCodec()
    {
    }

    /** The bytes of {@code command}. */
    public static byte[] encode(final ClusterCommand command)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(64);
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeByte(VERSION);
            if (command instanceof ClusterCommand.Join j)
            {
                final boolean resp = j.member().respPort() != 0;
                out.writeByte(resp ? 15 : 1);
                writeMember(out, j.member());
                out.writeInt(j.initialNodes());
                out.writeInt(j.replicas());
                if (resp)
                {
                    out.writeShort(j.member().respPort());
                }
            }
            else if (command instanceof ClusterCommand.Renew r && r.knownEpoch() < 0)
            {
                out.writeByte(2);
                out.writeInt(r.nodeId());
            }
            else if (command instanceof ClusterCommand.Renew r)
            {
                out.writeByte(14);
                out.writeInt(r.nodeId());
                out.writeLong(r.knownEpoch());
            }
            else if (command instanceof ClusterCommand.FailNode f)
            {
                out.writeByte(3);
                out.writeInt(f.nodeId());
                out.writeLong(f.renewalsSeen());
            }
            else if (command instanceof ClusterCommand.RemoveFromInSync r)
            {
                out.writeByte(4);
                rangeRequest(out, r.firstSlot(), r.rangeEpoch(), r.requester(), r.nodeId());
            }
            else if (command instanceof ClusterCommand.PromoteLearner p)
            {
                out.writeByte(5);
                rangeRequest(out, p.firstSlot(), p.rangeEpoch(), p.requester(), p.nodeId());
            }
            else if (command instanceof ClusterCommand.Failover f)
            {
                out.writeByte(6);
                out.writeInt(f.firstSlot());
                out.writeInt(f.target());
            }
            else if (command instanceof ClusterCommand.BeginMove m)
            {
                out.writeByte(7);
                out.writeInt(m.firstSlot());
                out.writeInt(m.lastSlot());
                out.writeInt(m.target());
            }
            else if (command instanceof ClusterCommand.FinishMove m)
            {
                out.writeByte(8);
                out.writeInt(m.firstSlot());
                out.writeInt(m.target());
            }
            else if (command instanceof ClusterCommand.RemoveMember r)
            {
                out.writeByte(9);
                out.writeInt(r.nodeId());
            }
            else if (command instanceof ClusterCommand.AddReplica a)
            {
                out.writeByte(10);
                out.writeInt(a.firstSlot());
                out.writeInt(a.nodeId());
            }
            else if (command instanceof ClusterCommand.DropReplica d)
            {
                out.writeByte(11);
                out.writeInt(d.firstSlot());
                out.writeInt(d.nodeId());
            }
            else if (command instanceof ClusterCommand.ReleaseRange r)
            {
                out.writeByte(12);
                out.writeInt(r.firstSlot());
                out.writeInt(r.nodeId());
            }
            else if (command instanceof ClusterCommand.SetVoters v)
            {
                out.writeByte(13);
                writeVoters(out, v.voters());
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /** The command in {@code bytes}; strict. */
    public static ClusterCommand decodeCommand(final byte[] bytes)
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            checkVersion(in);
            final int type = in.readUnsignedByte();
            final ClusterCommand command = switch (type)
            {
                case 1 -> new ClusterCommand.Join(readMember(in), in.readInt(), in.readInt());
                case 2 -> new ClusterCommand.Renew(in.readInt());
                case 3 -> new ClusterCommand.FailNode(in.readInt(), in.readLong());
                case 4 -> new ClusterCommand.RemoveFromInSync(in.readInt(), in.readLong(), in.readInt(), in.readInt());
                case 5 -> new ClusterCommand.PromoteLearner(in.readInt(), in.readLong(), in.readInt(), in.readInt());
                case 6 -> new ClusterCommand.Failover(in.readInt(), in.readInt());
                case 7 -> new ClusterCommand.BeginMove(in.readInt(), in.readInt(), in.readInt());
                case 8 -> new ClusterCommand.FinishMove(in.readInt(), in.readInt());
                case 9 -> new ClusterCommand.RemoveMember(in.readInt());
                case 10 -> new ClusterCommand.AddReplica(in.readInt(), in.readInt());
                case 11 -> new ClusterCommand.DropReplica(in.readInt(), in.readInt());
                case 12 -> new ClusterCommand.ReleaseRange(in.readInt(), in.readInt());
                case 13 -> new ClusterCommand.SetVoters(readVoters(in));
                case 14 -> renewKnowing(in.readInt(), in.readLong());
                case 15 -> readJoinWithResp(in);
                default -> throw new IllegalArgumentException("unknown cluster command type " + type);
            };
            checkEnd(in);
            return command;
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("truncated cluster command: " + ex, ex);
        }
    }

    private static ClusterCommand.Renew renewKnowing(final int nodeId, final long knownEpoch)
    {
        if (knownEpoch < 0)
        {
            throw new IllegalArgumentException("a renewal's known epoch is negative: " + knownEpoch);
        }
        return new ClusterCommand.Renew(nodeId, knownEpoch);
    }

    /** The bytes of {@code state}. */
    public static byte[] encode(final CoordState state)
    {
        return encode(state, STATE_VERSION);
    }

    /** The bytes of {@code state} in the layout of {@code version} (tests write the snapshots of earlier versions). */
    static byte[] encode(final CoordState state, final int version)
    {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream(256);
        try (DataOutputStream out = new DataOutputStream(bytes))
        {
            out.writeByte(version);
            out.writeInt(state.initialNodes());
            out.writeInt(state.replicas());
            final ClusterState c = state.cluster();
            out.writeLong(c.epoch());
            out.writeInt(c.members().size());
            for (final ClusterMember m : c.members())
            {
                writeMember(out, m);
                if (version >= STATE_VERSION)
                {
                    out.writeShort(m.respPort());
                }
            }
            out.writeInt(c.ranges().size());
            for (final SlotRange r : c.ranges())
            {
                out.writeInt(r.firstSlot());
                out.writeInt(r.lastSlot());
                out.writeLong(r.epoch());
                out.writeInt(r.primary());
                writeIds(out, r.backups());
                writeIds(out, r.learners());
                out.writeByte(r.state().ordinal());
            }
            out.writeInt(state.renewals().size());
            for (final Map.Entry<Integer, Long> e : state.renewals().entrySet())
            {
                out.writeInt(e.getKey());
                out.writeLong(e.getValue());
            }
            writeIds(out, List.copyOf(state.failed()));
            out.writeInt(state.handoffs().size());
            for (final Map.Entry<Integer, Integer> e : state.handoffs().entrySet())
            {
                out.writeInt(e.getKey());
                out.writeInt(e.getValue());
            }
            if (version >= VOTERS_STATE_VERSION)
            {
                writeVoters(out, state.voters());
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return bytes.toByteArray();
    }

    /** The state in {@code bytes}; strict. */
    public static CoordState decodeState(final byte[] bytes)
    {
        try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes)))
        {
            final int version = in.readUnsignedByte();
            if (version < VERSION || version > STATE_VERSION)
            {
                throw new IllegalArgumentException("cluster state version " + version + ", expected " + VERSION +
                    " to " + STATE_VERSION);
            }
            final int initialNodes = in.readInt();
            final int replicas = in.readInt();
            final long epoch = in.readLong();
            final int memberCount = count(in);
            final List<ClusterMember> members = new ArrayList<>(memberCount);
            for (int i = 0; i < memberCount; i++)
            {
                final ClusterMember m = readMember(in);
                members.add(version < STATE_VERSION ? m : withResp(m, in.readUnsignedShort()));
            }
            final int rangeCount = count(in);
            final List<SlotRange> ranges = new ArrayList<>(rangeCount);
            for (int i = 0; i < rangeCount; i++)
            {
                final int first = in.readInt();
                final int last = in.readInt();
                final long rangeEpoch = in.readLong();
                final int primary = in.readInt();
                final List<Integer> backups = readIds(in);
                final List<Integer> learners = readIds(in);
                final int state = in.readUnsignedByte();
                if (state >= SlotRange.State.values().length)
                {
                    throw new IllegalArgumentException("unknown range state " + state);
                }
                ranges.add(new SlotRange(first, last, rangeEpoch, primary, backups, learners,
                    SlotRange.State.values()[state]));
            }
            final int renewalCount = count(in);
            final Map<Integer, Long> renewals = new HashMap<>();
            for (int i = 0; i < renewalCount; i++)
            {
                renewals.put(in.readInt(), in.readLong());
            }
            final Set<Integer> failed = new HashSet<>(readIds(in));
            final Map<Integer, Integer> handoffs = new HashMap<>();
            final int handoffCount = count(in);
            for (int i = 0; i < handoffCount; i++)
            {
                handoffs.put(in.readInt(), in.readInt());
            }
            final List<ClusterSettings.Voter> voters = version < VOTERS_STATE_VERSION ? List.of() : readVoters(in);
            checkEnd(in);
            return new CoordState(new ClusterState(epoch, members, ranges), renewals, failed, initialNodes, replicas,
                handoffs, voters);
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("truncated cluster state: " + ex, ex);
        }
    }

    private static void rangeRequest(final DataOutputStream out, final int firstSlot, final long rangeEpoch,
        final int requester, final int nodeId) throws IOException
    {
        out.writeInt(firstSlot);
        out.writeLong(rangeEpoch);
        out.writeInt(requester);
        out.writeInt(nodeId);
    }

    private static void writeMember(final DataOutputStream out, final ClusterMember m) throws IOException
    {
        out.writeInt(m.nodeId());
        out.writeUTF(m.host());
        out.writeShort(m.controlPort());
        out.writeShort(m.dataPort());
    }

    private static ClusterMember readMember(final DataInputStream in) throws IOException
    {
        return new ClusterMember(in.readInt(), in.readUTF(), in.readUnsignedShort(), in.readUnsignedShort());
    }

    private static ClusterMember withResp(final ClusterMember m, final int respPort)
    {
        return new ClusterMember(m.nodeId(), m.host(), m.controlPort(), m.dataPort(), respPort);
    }

    private static ClusterCommand.Join readJoinWithResp(final DataInputStream in) throws IOException
    {
        final ClusterMember m = readMember(in);
        final int initialNodes = in.readInt();
        final int replicas = in.readInt();
        return new ClusterCommand.Join(withResp(m, in.readUnsignedShort()), initialNodes, replicas);
    }

    private static void writeVoters(final DataOutputStream out, final List<ClusterSettings.Voter> voters)
        throws IOException
    {
        out.writeInt(voters.size());
        for (final ClusterSettings.Voter v : voters)
        {
            out.writeInt(v.nodeId());
            out.writeUTF(v.host());
            out.writeShort(v.raftPort());
        }
    }

    private static List<ClusterSettings.Voter> readVoters(final DataInputStream in) throws IOException
    {
        final int n = count(in);
        final List<ClusterSettings.Voter> voters = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            voters.add(new ClusterSettings.Voter(in.readInt(), in.readUTF(), in.readUnsignedShort()));
        }
        return voters;
    }

    private static void writeIds(final DataOutputStream out, final List<Integer> ids) throws IOException
    {
        out.writeInt(ids.size());
        for (final int id : ids)
        {
            out.writeInt(id);
        }
    }

    private static List<Integer> readIds(final DataInputStream in) throws IOException
    {
        final int n = count(in);
        final List<Integer> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++)
        {
            ids.add(in.readInt());
        }
        return ids;
    }

    private static int count(final DataInputStream in) throws IOException
    {
        final int n = in.readInt();
        if (n < 0 || n > ClusterState.HASH_SLOT_COUNT * 4)
        {
            throw new IllegalArgumentException("implausible element count " + n);
        }
        return n;
    }

    private static void checkVersion(final DataInputStream in) throws IOException
    {
        final int version = in.readUnsignedByte();
        if (version != VERSION)
        {
            throw new IllegalArgumentException("cluster codec version " + version + ", expected " + VERSION);
        }
    }

    private static void checkEnd(final DataInputStream in) throws IOException
    {
        if (in.read() != -1)
        {
            throw new IllegalArgumentException("trailing bytes after the encoded value");
        }
    }
}

package io.rdmakv.server.cluster.ratis;

import org.agrona.concurrent.NanoClock;
import org.apache.ratis.proto.RaftProtos;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftGroupId;
import org.apache.ratis.protocol.RaftGroupMemberId;
import org.apache.ratis.protocol.RaftPeerId;
import org.apache.ratis.server.RaftServer;
import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.storage.RaftStorage;
import org.apache.ratis.statemachine.StateMachineStorage;
import org.apache.ratis.statemachine.TransactionContext;
import org.apache.ratis.statemachine.impl.BaseStateMachine;
import org.apache.ratis.statemachine.impl.SimpleStateMachineStorage;
import org.apache.ratis.statemachine.impl.SingleFileSnapshotInfo;
import org.apache.ratis.thirdparty.com.google.protobuf.ByteString;
import org.apache.ratis.util.MD5FileUtil;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The coordination group's state machine on one voter: applies {@link ClusterCommand}s from the Raft log with
 * {@link ClusterTransitions}, answers each with {@link CommandReply} (accepted or why not, and the state after it; a
 * renewal from a node that holds the current epoch, without the state), answers read-only queries with the current
 * state, and keeps it in single-file snapshots. It also feeds the voter's
 * {@link LeaseWatchdog}: the local time each renewal was applied, and when this voter became or stopped being leader.
 */
public final class ClusterStateMachine extends BaseStateMachine
{
    private static final Logger LOG = LoggerFactory.getLogger(ClusterStateMachine.class);

    private final SimpleStateMachineStorage storage = new SimpleStateMachineStorage();
    private final LeaseWatchdog watchdog;
    private final NanoClock clock;
    private final Consumer<CoordState> onChange;
    private volatile CoordState state = CoordState.empty();
    private volatile long appliedCommands;

    /**
     * @param onChange called on the applying thread with every state whose cluster epoch rose (must not block).
     */
    private volatile Runnable leaderChanged;

    public ClusterStateMachine(final LeaseWatchdog watchdog, final NanoClock clock, final Consumer<CoordState> onChange)
    {
        this.watchdog = watchdog;
        this.clock = clock;
        this.onChange = onChange;
    }

    /** The state after the last applied command. */
    public CoordState state()
    {
        return state;
    }

    /** Commands applied by this voter since it started (log entries replayed at start-up included). */
    public long appliedCommands()
    {
        return appliedCommands;
    }

    @Override
    public void initialize(final RaftServer server, final RaftGroupId groupId, final RaftStorage raftStorage)
        throws IOException
    {
        super.initialize(server, groupId, raftStorage);
        storage.init(raftStorage);
        loadSnapshot(storage.loadLatestSnapshot());
    }

    @Override
    public void reinitialize() throws IOException
    {
        loadSnapshot(storage.loadLatestSnapshot());
    }

    @Override
    public StateMachineStorage getStateMachineStorage()
    {
        return storage;
    }

    @Override
    public CompletableFuture<Message> applyTransaction(final TransactionContext trx)
    {
        final RaftProtos.LogEntryProto entry = trx.getLogEntry();
        final byte[] bytes = entry.getStateMachineLogEntry().getLogData().toByteArray();
        CommandReply reply;
        synchronized (this)
        {
            final CoordState before = state;
            try
            {
                final ClusterCommand command = CommandCodec.decodeCommand(bytes);
                final ClusterTransitions.Outcome outcome = ClusterTransitions.apply(before, command);
                state = outcome.state();
                if (outcome.accepted())
                {
                    noteLease(command);
                }
                reply = omitsState(command, outcome) ? CommandReply.unchanged(state.cluster().epoch()) :
                    new CommandReply(outcome.refusal(), outcome.state());
            }
            catch (final IllegalArgumentException ex)
            {
                // A malformed entry changes nothing on any voter (decoding is deterministic).
                reply = new CommandReply("malformed cluster command: " + ex.getMessage(), before);
            }
            appliedCommands++;
            updateLastAppliedTermIndex(entry.getTerm(), entry.getIndex());
            if (state.cluster().epoch() != before.cluster().epoch())
            {
                onChange.accept(state);
            }
        }
        return CompletableFuture.completedFuture(Message.valueOf(ByteString.copyFrom(reply.encode())));
    }

    /**
     * An accepted renewal from a node that holds the current configuration epoch: it has everything a renewal could
     * tell it (only renewal counts changed, and every other accepted command raises the epoch), so the answer leaves
     * the state out.
     */
    private static boolean omitsState(final ClusterCommand command, final ClusterTransitions.Outcome outcome)
    {
        return outcome.accepted() && command instanceof ClusterCommand.Renew r &&
            r.knownEpoch() == outcome.state().cluster().epoch();
    }

    private void noteLease(final ClusterCommand command)
    {
        if (command instanceof ClusterCommand.Renew r)
        {
            watchdog.applied(r.nodeId(), clock.nanoTime());
        }
        else if (command instanceof ClusterCommand.Join j)
        {
            watchdog.applied(j.member().nodeId(), clock.nanoTime());
        }
    }

    @Override
    public CompletableFuture<Message> query(final Message request)
    {
        return CompletableFuture.completedFuture(
            Message.valueOf(ByteString.copyFrom(new CommandReply(null, state).encode())));
    }

    /**
     * {@code action} runs (on Ratis's thread: it must not block) each time this voter learns of a new leader, itself
     * included: the node renews at once, so the new leader applies its renewal a commit after the election instead of
     * up to a renewal interval later, and its grace (see {@link LeaseWatchdog}) ends sooner for a dead node.
     */
    public void onLeaderChanged(final Runnable action)
    {
        leaderChanged = action;
    }

    @Override
    public void notifyLeaderChanged(final RaftGroupMemberId groupMemberId, final RaftPeerId newLeaderId)
    {
        final Runnable action = leaderChanged;
        if (action != null && newLeaderId != null)
        {
            action.run();
        }
        if (groupMemberId.getPeerId().equals(newLeaderId))
        {
            LOG.info("{} became the coordination group's leader: a lease is declared expired lease * drift ({} ms) " +
                "after this voter applied its last renewal", newLeaderId, watchdog.expiryNanos() / 1_000_000);
            watchdog.becameLeader(clock.nanoTime());
        }
        else
        {
            watchdog.lostLeadership();
        }
    }

    @Override
    public long takeSnapshot() throws IOException
    {
        final CoordState snapshot;
        final TermIndex last;
        synchronized (this)
        {
            snapshot = state;
            last = getLastAppliedTermIndex();
        }
        if (last == null || last.getIndex() < 0)
        {
            return org.apache.ratis.server.raftlog.RaftLog.INVALID_LOG_INDEX;
        }
        final File file = storage.getSnapshotFile(last.getTerm(), last.getIndex());
        final File tmp = new File(file.getPath() + ".tmp");
        Files.write(tmp.toPath(), CommandCodec.encode(snapshot));
        Files.move(tmp.toPath(), file.toPath(), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        MD5FileUtil.computeAndSaveMd5ForFile(file);
        storage.loadLatestSnapshot();
        return last.getIndex();
    }

    private synchronized void loadSnapshot(final SingleFileSnapshotInfo snapshot) throws IOException
    {
        if (snapshot == null)
        {
            return;
        }
        final File file = snapshot.getFile().getPath().toFile();
        final CoordState loaded = CommandCodec.decodeState(Files.readAllBytes(file.toPath()));
        final long before = state.cluster().epoch();
        state = loaded;
        setLastAppliedTermIndex(snapshot.getTermIndex());
        LOG.info("cluster state loaded from snapshot {} (epoch {})", file.getName(), loaded.cluster().epoch());
        if (loaded.cluster().epoch() != before)
        {
            onChange.accept(loaded);
        }
    }
}

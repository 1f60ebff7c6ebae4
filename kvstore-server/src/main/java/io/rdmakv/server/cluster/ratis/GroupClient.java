package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.config.ClusterSettings;
import org.apache.ratis.client.RaftClient;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.protocol.ClientId;
import org.apache.ratis.protocol.Message;
import org.apache.ratis.protocol.RaftClientReply;
import org.apache.ratis.protocol.RaftPeer;
import org.apache.ratis.protocol.exceptions.ReconfigurationInProgressException;
import org.apache.ratis.retry.RetryPolicies;
import org.apache.ratis.util.TimeDuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * A node's Ratis client of the coordination group, aimed at the voters the node knows: the bootstrap list
 * ({@code cluster.voters}) until the committed state names others ({@link #retarget}). Ratis's client also takes the
 * peers a NotLeader answer lists; retargeting covers a node whose list holds no current voter but the one it reached.
 */
final class GroupClient implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(GroupClient.class);
    /** A configuration change refused because another is under way is tried again this often, this far apart. */
    private static final int RECONFIGURATION_TRIES = 40;
    private static final long RECONFIGURATION_PAUSE_MS = 250;

    /** The voters aimed at (sorted by id) and the client aimed at them. */
    private record Target(List<ClusterSettings.Voter> voters, RaftClient client)
    {
    }

    private final ClusterSettings settings;
    /** Ratis' TLS ({@link RaftTls}), or null: in clear. */
    private final Parameters parameters;
    private final AtomicReference<Target> target = new AtomicReference<>();
    /** Clients aimed at older voters: closed with this one, so a call still in flight on one is not cut off. */
    private final List<RaftClient> retired = new java.util.concurrent.CopyOnWriteArrayList<>();
    private volatile boolean closed;

    GroupClient(final ClusterSettings settings, final Parameters parameters)
    {
        this.settings = settings;
        this.parameters = parameters;
        target.set(open(sorted(settings.voters())));
    }

    /** The voters this client is aimed at, sorted by id. */
    List<ClusterSettings.Voter> voters()
    {
        return target.get().voters();
    }

    /** Submit a command to the log (blocking, with the client's retries). */
    RaftClientReply send(final Message message) throws IOException
    {
        return target.get().client().io().send(message);
    }

    /** A read-only query answered by the leader (blocking). */
    RaftClientReply sendReadOnly(final Message message) throws IOException
    {
        return target.get().client().io().sendReadOnly(message);
    }

    /**
     * Make {@code voters} the group's configuration through its leader (Ratis: a new peer is caught up first, then
     * joint consensus; the answer comes once the new configuration is committed). A refusal because another change is
     * under way is tried again for up to ten seconds.
     */
    RaftClientReply setConfiguration(final List<ClusterSettings.Voter> voters) throws IOException
    {
        final List<RaftPeer> peers = new ArrayList<>();
        for (final ClusterSettings.Voter v : voters)
        {
            peers.add(RaftVoter.peer(v));
        }
        for (int attempt = 1; ; attempt++)
        {
            RaftClientReply reply = null;
            IOException failure = null;
            try
            {
                reply = target.get().client().admin().setConfiguration(peers);
            }
            catch (final IOException ex)
            {
                failure = ex;
            }
            final boolean inProgress = failure instanceof ReconfigurationInProgressException ||
                reply != null && reply.getException() instanceof ReconfigurationInProgressException;
            if (!inProgress || attempt == RECONFIGURATION_TRIES)
            {
                if (failure != null)
                {
                    throw failure;
                }
                return reply;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(RECONFIGURATION_PAUSE_MS));
        }
    }

    /** Aim at {@code voters} when they differ from the voters aimed at now (the old client retires). */
    void retarget(final List<ClusterSettings.Voter> voters)
    {
        final List<ClusterSettings.Voter> wanted = sorted(voters);
        final Target now = target.get();
        if (closed || wanted.isEmpty() || now.voters().equals(wanted))
        {
            return;
        }
        final Target next = open(wanted);
        if (target.compareAndSet(now, next))
        {
            LOG.info("the coordination group's voters are now {} (were {}): the group client follows them",
                VoterChanges.text(wanted), VoterChanges.text(now.voters()));
            retired.add(now.client());
        }
        else
        {
            closeQuietly(next.client());
        }
    }

    private Target open(final List<ClusterSettings.Voter> voters)
    {
        final RaftClient client = RaftClient.newBuilder()
            .setClientId(ClientId.randomId())
            .setRaftGroup(RaftVoter.group(voters))
            .setProperties(RaftVoter.properties(settings))
            .setParameters(parameters)
            // Long enough to ride out an election (four election timeouts and a second, at least a lease), short
            // enough to report a group that lost its majority within seconds. Tries retrySleepMillis apart: a renewal
            // that was aimed at a dead leader reaches the new one soon after its election, well within the grace
            // the new leader gives every member (LeaseWatchdog, lease / 3).
            .setRetryPolicy(RetryPolicies.retryUpToMaximumCountWithFixedSleep(
                (int)Math.max((4 * settings.electionTimeoutMillis() + 1000) / retrySleepMillis(settings),
                    settings.leaseMillis() / retrySleepMillis(settings)),
                TimeDuration.valueOf(retrySleepMillis(settings), TimeUnit.MILLISECONDS)))
            .build();
        return new Target(voters, client);
    }

    /** The pause between a call's tries: an eighth of the election timeout, 10 to 100 ms (25 ms by default). */
    static long retrySleepMillis(final ClusterSettings settings)
    {
        return Math.max(10, Math.min(100, settings.electionTimeoutMillis() / 8));
    }

    static List<ClusterSettings.Voter> sorted(final List<ClusterSettings.Voter> voters)
    {
        final List<ClusterSettings.Voter> out = new ArrayList<>(voters);
        out.sort(Comparator.comparingInt(ClusterSettings.Voter::nodeId));
        return List.copyOf(out);
    }

    private static void closeQuietly(final RaftClient client)
    {
        try
        {
            client.close();
        }
        catch (final IOException ex)
        {
            LOG.warn("closing the coordination client: {}", ex.toString());
        }
    }

    @Override
    public void close()
    {
        closed = true;
        closeQuietly(target.get().client());
        retired.forEach(GroupClient::closeQuietly);
    }
}

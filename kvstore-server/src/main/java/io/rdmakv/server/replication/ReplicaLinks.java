package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ReplicateRequestFlyweight;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.transport.Worker;
import org.agrona.collections.Int2ObjectHashMap;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.ByteBuffer;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.IntFunction;

/**
 * A primary's links to the replicas it sends writes to (one {@link PeerLink} per node, made at the first send), the one
 * buffer every REPLICATE message is encoded in, and the inbox through which other threads (the links' connector, the
 * coordinator's answers) hand work to the request thread.
 *
 * <pre>
 *   message(correlationId).write(...)  -> encoded in the send buffer -> send(node, length) -> that node's PeerLink
 *                                         (sent, or copied and queued while the link connects; false: cannot go)
 *   post(task)   any thread            -> inbox -> wake-up -> drain() on the request thread runs it
 * </pre>
 * Request thread only, except {@link #post}.
 */
final class ReplicaLinks implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaLinks.class);
    private static final int INBOX_CAPACITY = 4096;

    private final Worker worker;
    private final String transport;
    private final PeerAccess access;
    private final Runnable wakeUp;
    private final PeerLink.Listener listener;
    private final ExecutorService connector;
    private final Int2ObjectHashMap<PeerLink> links = new Int2ObjectHashMap<>();
    private final ManyToOneConcurrentArrayQueue<Runnable> inbox = new ManyToOneConcurrentArrayQueue<>(INBOX_CAPACITY);
    private final ReplicateRequestFlyweight message = new ReplicateRequestFlyweight();
    private final UnsafeBuffer messageBuffer;
    /** The member a node id names in the current map (null when it names none). */
    private final IntFunction<ClusterMember> members;

    /**
     * @param context  the worker the links are endpoints of, the transport offered, the secret, the largest message.
     * @param members  the member a node id names in the followed view's current map (null when it names none).
     * @param wakeUp   wakes the request thread after a {@link #post}.
     * @param listener told of the links' answers and failures, on the request thread.
     */
    ReplicaLinks(final ReplicationContext context, final IntFunction<ClusterMember> members, final Runnable wakeUp,
        final PeerLink.Listener listener)
    {
        this.worker = context.worker();
        this.transport = context.transport();
        this.access = context.access();
        this.members = members;
        this.wakeUp = wakeUp;
        this.listener = listener;
        this.messageBuffer = new UnsafeBuffer(ByteBuffer.allocateDirect(context.maxMessageBytes()));
        this.connector = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "rdmakv-replication-connect");
            t.setDaemon(true);
            return t;
        });
    }

    /** The REPLICATE flyweight over the send buffer, its header written: fill it, then {@link #send} its length. */
    ReplicateRequestFlyweight message(final long correlationId)
    {
        return message.wrap(messageBuffer, 0, messageBuffer.capacity())
            .header(MessageType.REPLICATE_REQUEST, correlationId);
    }

    /** Send the message in the send buffer to a replica; false when it cannot go (or the node is unknown). */
    boolean send(final int nodeId, final int length)
    {
        final PeerLink link = link(nodeId);
        return link != null && link.send(messageBuffer, 0, length);
    }

    /** Runs a task posted from another thread on the request thread, and wakes it. */
    void post(final Runnable task)
    {
        while (!inbox.offer(task))
        {
            Thread.onSpinWait(); // bounded by coordinator answers and handshakes in flight
        }
        wakeUp.run();
    }

    /** Run the posted tasks (request thread); returns how many ran. */
    int drain()
    {
        return inbox.drain(Runnable::run, INBOX_CAPACITY);
    }

    @Override
    public void close()
    {
        links.values().forEach(PeerLink::close);
        connector.shutdownNow();
    }

    private PeerLink link(final int nodeId)
    {
        PeerLink link = links.get(nodeId);
        if (link == null)
        {
            final ClusterMember member = members.apply(nodeId);
            if (member == null)
            {
                LOG.warn("replication: node {} is a replica but not a member of the map", nodeId);
                return null;
            }
            link = new PeerLink(member, worker, transport, access, connector, this::post, listener);
            links.put(nodeId, link);
        }
        return link;
    }
}

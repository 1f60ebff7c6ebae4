package io.rdmakv.client.internal;

import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.layout.PoolHeaderFlyweight;
import io.rdmakv.protocol.wire.AttachAnswer;
import io.rdmakv.protocol.wire.AttachRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * This client's data connection to one node: the node's WELCOME facts, the transport endpoint, and the
 * {@link LocationCache} of where this node's values were last seen. Receives the node's answers (progress thread) and
 * notices when the connection is lost, so the next request reconnects. The cache lives and dies with the session: a
 * reconnect (node restart, new pool epoch) starts with an empty one, so no location outlives the pool it points into.
 *
 * <p>A new endpoint is usable only after {@link #attach}: its first message presents the WELCOME's session ticket,
 * and the node serves nothing before it accepted that. Until then the first answer is the ATTACH's, not an RPC's.
 *
 * <p>One-sided reads use {@link #readKey()}: the key of the memory window the node bound for this endpoint alone when
 * its ATTACH answer carries one (verbs, issue 33 item 3: the pool's own key then never reaches the client, and this
 * one is good over this connection only, until the session ends or is revoked), else the WELCOME's pool key. With
 * neither, GETs go by RPC.
 */
final class NodeSession implements EndpointHandler
{
    private static final Logger LOG = LoggerFactory.getLogger(NodeSession.class);

    private final NodeInfo info;
    private final boolean oneSided;
    private final RpcProtocol rpc;
    private final Redirector redirector;
    /** Its caller lanes (tcp with {@code callerLanes} > 0), or null. */
    private final CallerLanes lanes;
    private volatile Endpoint endpoint;
    private volatile boolean alive = true;
    private volatile boolean poolStale;
    private volatile boolean layoutUnsupported;
    private final LocationCache locationCache;
    /** The node's answer to ATTACH: its status, or null when the connection was lost first. */
    private final CompletableFuture<Status> attachAnswer = new CompletableFuture<>();
    private final ReadLease readLease = new ReadLease();
    /** The read lease the ATTACH answer granted (written before attachAnswer completes, read after). */
    private volatile int attachLeaseGrant;
    /** The key one-sided reads use: this endpoint's window's, else the WELCOME's; null: none (GETs by RPC). */
    private volatile RemoteKey readKey;
    /** The last cluster map found to place this session at its node id's address ({@link #usableIn}). */
    private volatile ClusterMap servesIn;

    /**
     * @param rpc        reads this node's answers.
     * @param redirector told when the connection is lost, with requests still waiting for its answers.
     * @param lanes      how to open caller lanes to the node, or null for none.
     */
    NodeSession(final NodeInfo info, final boolean oneSided, final LocationCache locationCache, final RpcProtocol rpc,
        final Redirector redirector, final CallerLanes.Settings lanes)
    {
        this.info = info;
        this.oneSided = oneSided;
        this.locationCache = locationCache;
        this.rpc = rpc;
        this.redirector = redirector;
        this.lanes = lanes == null ? null : new CallerLanes(lanes, rpc, this);
        this.readKey = info.remoteKey();
    }

    /**
     * The key this session's one-sided reads use: its own memory window's when the node bound one for it (known once
     * attached), else the pool's from the WELCOME; null when it has neither (then {@link #oneSided()} is false).
     */
    RemoteKey readKey()
    {
        return readKey;
    }

    /** Where this node's values were last seen (off when the cache is configured off or GETs go by RPC). */
    LocationCache locationCache()
    {
        return locationCache;
    }

    NodeInfo info()
    {
        return info;
    }

    /** The node's caller lanes, or null when requests go by the endpoint only. */
    CallerLanes lanes()
    {
        return lanes;
    }

    Endpoint endpoint()
    {
        return endpoint;
    }

    void endpoint(final Endpoint endpoint)
    {
        this.endpoint = endpoint;
    }

    /**
     * Present {@code ticket} on the new endpoint and wait for the node to accept it (the caller's thread, at
     * connect time).
     *
     * @throws KvException {@link KvError#AUTHENTICATION_FAILED} when the node refuses the ticket,
     *                     {@link KvError#TIMED_OUT} or {@link KvError#CONNECTION_FAILED} otherwise. The endpoint is
     *                     closed in every failure.
     */
    void attach(final byte[] ticket, final Duration timeout)
    {
        final UnsafeBuffer message = new UnsafeBuffer(new byte[AttachRequestFlyweight.ENCODED_LENGTH]);
        new AttachRequestFlyweight().wrap(message, 0, message.capacity())
            .header(MessageType.ATTACH_REQUEST, 0).ticket(ticket);
        final long sentNanos = ReadLease.now();
        final long sent = endpoint.send(message, 0, message.capacity(), null);
        final Status status;
        try
        {
            if (sent < 0)
            {
                throw KvException.of(KvError.CONNECTION_FAILED, "cannot attach to node " + info.nodeId() + " at " +
                    info.dataAddress() + ": " + TransportStatus.fromSentinel(sent).description());
            }
            status = attachAnswer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException ex)
        {
            close();
            throw KvException.of(KvError.TIMED_OUT, "node " + info.nodeId() + " at " + info.dataAddress() +
                " did not answer ATTACH within " + timeout, ex);
        }
        catch (final InterruptedException ex)
        {
            close();
            Thread.currentThread().interrupt();
            throw KvException.of(KvError.CLOSED, "interrupted while attaching", ex);
        }
        catch (final ExecutionException ex)
        {
            close();
            throw ex.getCause() instanceof KvException kv ? kv : KvException.of(KvError.CONNECTION_FAILED,
                "attach to node " + info.nodeId() + " failed: " + ex.getCause(), ex.getCause());
        }
        catch (final KvException ex)
        {
            close();
            throw ex;
        }
        if (status == null)
        {
            close();
            throw KvException.of(KvError.CONNECTION_FAILED, "node " + info.nodeId() + " at " + info.dataAddress() +
                " closed the data connection before answering ATTACH");
        }
        if (status != Status.OK)
        {
            close();
            throw KvException.of(status == Status.UNAUTHENTICATED ? KvError.AUTHENTICATION_FAILED : KvError.REJECTED,
                "node " + info.nodeId() + " at " + info.dataAddress() + " refused the data connection: " +
                status.description());
        }
        readLease.granted(sentNanos, attachLeaseGrant);
        AttachedKeys.attached(info.nodeId(), endpoint, readKey);
    }

    /** This client's read lease on the node: one-sided GETs are trusted only while it holds. */
    ReadLease readLease()
    {
        return readLease;
    }

    /** GETs to this node go one-sided (resolved get mode, and the pool has not been rebuilt since the handshake). */
    boolean oneSided()
    {
        return oneSided && readKey != null && !poolStale && !layoutUnsupported;
    }

    /**
     * The node's pool header names a layout version this client cannot read: GETs to it go by RPC for the rest of
     * the session (a reconnect would find the same layout).
     */
    void markLayoutUnsupported(final int layoutVersion)
    {
        if (!layoutUnsupported)
        {
            layoutUnsupported = true;
            LOG.warn("node {} lays out its pool in version {}, this client reads version {}: its GETs go by RPC",
                info.nodeId(), layoutVersion, PoolHeaderFlyweight.LAYOUT_VERSION);
        }
    }

    /**
     * Live, and placed by {@code map} at its node id's address. The router asks when the map has no session for the
     * node yet, or the one it has died: the address comparison (a map lookup and a host string's equals) runs once
     * per map, then an identity check (maps are replaced, never changed); a request routed by a map that has a live
     * session for the node uses it without asking ({@link ClusterMap#session}).
     */
    boolean usableIn(final ClusterMap map, final int nodeId)
    {
        if (!isAlive())
        {
            return false;
        }
        if (servesIn == map)
        {
            return true;
        }
        if (!info.controlAddress().equals(map.controlAddress(nodeId)))
        {
            return false;
        }
        servesIn = map;
        return true;
    }

    boolean isAlive()
    {
        final Endpoint e = endpoint;
        return alive && e != null && e.isConnected();
    }

    /**
     * The pool header's epoch differs from the handshake's: the node rebuilt its pool. GETs go by RPC until a new
     * handshake (the next reconnect) brings the new geometry and key.
     */
    void markPoolStale()
    {
        if (!poolStale)
        {
            poolStale = true;
            alive = false;
            LOG.info("node {} rebuilt its pool (epoch changed); reconnecting for new pool facts", info.nodeId());
        }
    }

    void close()
    {
        alive = false;
        if (lanes != null)
        {
            lanes.close(); // a borrowed lane is closed when its caller gives it back
        }
        final Endpoint e = endpoint;
        if (e != null)
        {
            e.close();
        }
    }

    @Override
    public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
    {
        if (!attachAnswer.isDone())
        {
            onAttachAnswer(buffer, offset, length);
            return;
        }
        rpc.onMessage(this, buffer, offset, length);
    }

    /** Once per connection, so it may allocate. */
    private void onAttachAnswer(final DirectBuffer buffer, final int offset, final int length)
    {
        try
        {
            final ResponseFlyweight response = new ResponseFlyweight().wrap(buffer, offset, length);
            response.validate();
            final Status status = response.status();
            attachLeaseGrant = response.readLeaseMillis();
            final byte[] windowKey = status == Status.OK ? AttachAnswer.windowKey(response) : null;
            if (windowKey != null)
            {
                readKey = RemoteKey.unpack(windowKey); // before the answer completes: attach() returns after it
            }
            attachAnswer.complete(status == null ? Status.MALFORMED : status);
        }
        catch (final IllegalArgumentException ex)
        {
            attachAnswer.completeExceptionally(KvException.of(KvError.PROTOCOL_ERROR,
                "node " + info.nodeId() + " answered ATTACH with an unusable window key: " + ex.getMessage(), ex));
        }
        catch (final ProtocolException ex)
        {
            attachAnswer.completeExceptionally(KvException.of(KvError.PROTOCOL_ERROR,
                "node " + info.nodeId() + " answered ATTACH with a malformed message: " + ex.getMessage(), ex));
        }
    }

    @Override
    public void onDisconnected(final Endpoint endpoint, final TransportStatus status, final String detail)
    {
        alive = false;
        attachAnswer.complete(null);
        LOG.info("connection to node {} at {} closed: {}{}", info.nodeId(), info.dataAddress(), status.description(),
            detail == null ? "" : " (" + detail + ")");
        redirector.sessionLost(this, status.description() + (detail == null ? "" : ": " + detail));
    }
}

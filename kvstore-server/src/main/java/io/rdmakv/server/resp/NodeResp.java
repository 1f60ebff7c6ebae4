package io.rdmakv.server.resp;

import io.netty.bootstrap.ServerBootstrap;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.session.UsersDirectory;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.ProgressModel;
import io.rdmakv.transport.Worker;

import java.util.List;
import java.util.function.Supplier;

/**
 * A node's side of the RESP listener: its tickets, its request thread's door and its figures ({@link RespNode}).
 * {@link #start} opens the listener when {@code resp.port} is set.
 */
public final class NodeResp implements RespNode
{
    private static final ClusterState EMPTY = new ClusterState(0, List.of(), List.of());

    private final ServerConfig config;
    private final SessionTickets tickets;
    private final EndpointHandler requestThread;
    private final PoolIndex index;
    private final RocksStore store;
    private final ServerCounters counters;
    private final long poolBytes;
    private final Supplier<ClusterView> view;

    private NodeResp(final ServerConfig config, final SessionTickets tickets, final EndpointHandler requestThread,
        final PoolIndex index, final RocksStore store, final ServerCounters counters, final long poolBytes,
        final Supplier<ClusterView> view)
    {
        this.view = view;
        this.config = config;
        this.tickets = tickets;
        this.requestThread = requestThread;
        this.index = index;
        this.store = store;
        this.counters = counters;
        this.poolBytes = poolBytes;
    }

    /**
     * Start the RESP listener of a node, or return null when {@code resp.port} is 0. On a node whose worker's event
     * loop is its request thread (tcp: the worker offers a {@code ServerBootstrap} on that loop), RESP connections live
     * on that loop and call {@code handler} directly, as the data port's connections do: a command is handled where it
     * is read. Otherwise they have an event loop of their own and reach the request thread through {@code handOff}.
     *
     * @param handOff the node's hand-off to its request thread (events replayed there, in order).
     * @param view    the node's cluster view once it started (null before).
     * @param users   the users {@code AUTH user password} logs in as, or null.
     * @throws IllegalStateException when the port cannot be bound.
     */
    public static RespServer start(final ServerConfig config, final SessionTickets tickets, final Worker worker,
        final EndpointHandler handler, final EndpointHandler handOff, final PoolIndex index, final RocksStore store,
        final ServerCounters counters, final long poolBytes, final Supplier<ClusterView> view,
        final UsersDirectory users)
    {
        if (!config.resp().enabled())
        {
            return null;
        }
        final RespSettings settings = new RespSettings(config.host(), config.resp().port(), config.maxKeyBytes(),
            config.maxValueBytes(), config.resp().maxInlineBytes(), config.resp().maxArguments(),
            config.resp().maxPendingReplies(), config.secret(), users, config.admission().newThrottle());
        final ServerBootstrap onRequestThread = requestThreadLoop(worker);
        final RespServer server = onRequestThread != null ?
            new RespServer(settings, new NodeResp(config, tickets, handler, index, store, counters, poolBytes, view),
                RespServer.on(onRequestThread), config.security().tlsContexts()) :
            new RespServer(settings, new NodeResp(config, tickets, handOff, index, store, counters, poolBytes, view),
                RespServer.ownLoop(), config.security().tlsContexts());
        server.start();
        return server;
    }

    /**
     * Whether RESP connections can live on {@code worker}'s request thread (then they need no hand-off).
     *
     * @return true when the worker is event-driven and offers a server bootstrap on its loop (tcp).
     */
    public static boolean onRequestThread(final Worker worker)
    {
        return requestThreadLoop(worker) != null;
    }

    private static ServerBootstrap requestThreadLoop(final Worker worker)
    {
        return worker.progressModel() == ProgressModel.EVENT_DRIVEN ? worker.unwrap(ServerBootstrap.class) : null;
    }

    @Override
    public byte[] issueTicket()
    {
        return tickets.issue();
    }

    @Override
    public EndpointHandler requestThread()
    {
        return requestThread;
    }

    @Override
    public int nodeId()
    {
        return config.nodeId();
    }

    @Override
    public long keyCount()
    {
        return index.isComplete() ? index.keyCount() : Math.max(0, store.estimatedKeyCount());
    }

    @Override
    public long poolBytes()
    {
        return poolBytes;
    }

    @Override
    public String counters()
    {
        return counters.render();
    }

    @Override
    public boolean clustered()
    {
        return config.cluster().enabled();
    }

    @Override
    public ClusterState clusterState()
    {
        final ClusterView v = view.get();
        return v == null ? EMPTY : v.current();
    }

    @Override
    public java.util.Set<Integer> failedNodes()
    {
        final ClusterView v = view.get();
        return v == null ? java.util.Set.of() : v.failedNodes();
    }

    @Override
    public String advertisedHost()
    {
        return config.advertisedHost();
    }

    @Override
    public int respPort()
    {
        return config.resp().port();
    }
}

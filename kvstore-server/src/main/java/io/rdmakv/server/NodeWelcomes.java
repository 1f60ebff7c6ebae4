package io.rdmakv.server;

import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.MemberAddress;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.ClusterView;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.session.Access;
import io.rdmakv.server.session.TransportOffer;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Builds a node's WELCOMEs (control path: allocates). Every transport the node serves is listed, the main one first
 * unless the client's HELLO prefers another the node serves: the first address is the one a client naming one
 * transport uses, and the WELCOME's remote key is that transport's, so a client of the single-transport protocol is
 * served by a node serving several. With side transports each address carries its own remote key
 * ({@link TransportAddress#served}); a node serving one transport sends exactly what it always did, unless that
 * transport is host-local. The address of a host-local transport carries the node's host identity whether it is the
 * main transport ({@code transport=shm}) or a side one: a client chooses a host-local transport only when that
 * identity is its own (before, a {@code transport=shm} node sent its shm address without it, so {@code auto} clients
 * on its host were told it was elsewhere and took tcp).
 */
final class NodeWelcomes
{
    private final ServerConfig config;
    private final String mainTransport;
    private final int mainPort;
    private final byte[] mainRemoteKey;
    /** The main transport's host identity: this process's when the main transport is host-local, else empty. */
    private final String mainHostIdentity;
    private final List<SideTransports.Served> side;
    private final PoolGeometry geometry;
    private final long epoch;
    private final long poolAddress;
    private final SessionTickets tickets;
    private final Supplier<ClusterView> clusterView;

    NodeWelcomes(final ServerConfig config, final String mainTransport, final int mainPort,
        final byte[] mainRemoteKey, final String mainHostIdentity, final List<SideTransports.Served> side, final PoolGeometry geometry,
        final long epoch, final long poolAddress, final SessionTickets tickets, final Supplier<ClusterView> clusterView)
    {
        this.config = config;
        this.mainTransport = mainTransport;
        this.mainPort = mainPort;
        this.mainRemoteKey = mainRemoteKey.clone();
        this.mainHostIdentity = mainHostIdentity;
        this.side = List.copyOf(side);
        this.geometry = geometry;
        this.epoch = epoch;
        this.poolAddress = poolAddress;
        this.tickets = tickets;
        this.clusterView = clusterView;
    }

    /** The facts with an all-zero ticket no data endpoint accepts (tests, tools). */
    Welcome facts()
    {
        return welcome(new byte[Welcome.SESSION_TICKET_LENGTH], List.of());
    }

    /**
     * The WELCOME for a good HELLO, with a fresh session ticket that remembers what both sides offered (for the
     * node's line at the ATTACH) and what the handshake authenticated (checked on every request of the endpoint).
     *
     * @return the WELCOME; null when too many tickets wait unused.
     */
    Welcome issue(final Hello hello, final Access access)
    {
        final List<TransportAddress> addresses = addresses(hello.transports());
        final byte[] ticket = tickets.issue(new TransportOffer(hello.transports(),
            addresses.stream().map(TransportAddress::transport).toList()), access);
        return ticket == null ? null : welcome(ticket, hello.transports());
    }

    private List<TransportAddress> addresses(final List<String> preference)
    {
        final String host = config.advertisedHost();
        if (side.isEmpty() && mainHostIdentity.isEmpty())
        {
            return List.of(new TransportAddress(mainTransport, host, mainPort, new byte[0]));
        }
        final List<TransportAddress> all = new ArrayList<>();
        all.add(TransportAddress.served(mainTransport, host, mainPort, mainRemoteKey, mainHostIdentity));
        side.forEach(s -> all.add(SideTransports.address(s, config)));
        for (final String wanted : preference)
        {
            for (int i = 0; i < all.size(); i++)
            {
                if (all.get(i).transport().equals(wanted))
                {
                    all.add(0, all.remove(i));
                    return all;
                }
            }
        }
        return all;
    }

    private Welcome welcome(final byte[] ticket, final List<String> preference)
    {
        final ClusterView view = clusterView.get(); // null for a handshake that races the view's start: no map yet
        final ClusterState state = view == null || view.current() == null ? new ClusterState(0, List.of(), List.of()) :
            view.current();
        final List<io.rdmakv.protocol.wire.ClusterNode> map = ClusterViews.wireMap(state);
        final List<TransportAddress> addresses = addresses(preference);
        final byte[] remoteKey = addresses.get(0).remoteKey(mainRemoteKey);
        final List<MemberAddress> members = new ArrayList<>();
        if (config.cluster().enabled())
        {
            state.members().forEach(m -> members.add(new MemberAddress(m.nodeId(), m.host(), m.controlPort())));
        }
        return new Welcome(config.nodeId(), geometry, remoteKey, epoch, poolAddress, addresses,
            config.maxKeyBytes(), config.maxValueBytes(), map, ticket, config.cluster().enabled() ? state.epoch() : 0,
            members);
    }
}

package io.rdmakv.client.internal;

import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.protocol.layout.SlotOwnershipTable;
import io.rdmakv.protocol.wire.ClusterNode;
import io.rdmakv.protocol.wire.MemberAddress;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.Endpoint;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.net.InetSocketAddress;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The map's one route per hash slot: the primary and the range epoch a request is routed by come from one word, the
 * same for every slot of a range, and a map keeps the session found usable for each primary.
 */
class ClusterMapTest
{
    private static final int LAST = ProtocolLimits.HASH_SLOT_COUNT - 1;
    private static final HostPort ANSWERED_AT = new HostPort("10.0.0.1", 7400);

    @Test
    void shouldRouteEverySlotOfANodeWithoutAMapToItAtEpochZeroByOneRoute()
    {
        final ClusterMap map = ClusterMap.from(welcome(5, List.of(), 0), ANSWERED_AT);

        assertEquals(1, map.routeCount(), "no per-slot table for a single node");
        for (int hashSlot = 0; hashSlot <= LAST; hashSlot++)
        {
            assertEquals(5, map.ownerOf(hashSlot));
            assertEquals(0, map.rangeEpoch(hashSlot));
        }
        assertEquals(ANSWERED_AT, map.controlAddress(5));
        assertFalse(map.changes());
    }

    @Test
    void shouldGiveEachSlotItsRangesPrimaryAndEpochAndLeaveGapsUnassigned()
    {
        final List<ClusterNode> ranges = List.of(
            new ClusterNode(1, "10.0.0.1", 7400, 0, 99, 7, List.of()),
            new ClusterNode(2, "10.0.0.2", 7400, 100, 199, 3, List.of(1)),
            // node 1 again, at the same epoch: the same route as its first range
            new ClusterNode(1, "10.0.0.1", 7400, 300, 399, 7, List.of()),
            // node 1 at another epoch: another route
            new ClusterNode(1, "10.0.0.1", 7400, 400, LAST, 9, List.of()));
        final ClusterMap map = ClusterMap.from(welcome(1, ranges, 12), ANSWERED_AT);

        for (int hashSlot = 0; hashSlot <= LAST; hashSlot++)
        {
            final long route = map.route(hashSlot);
            final int expectedOwner = hashSlot < 100 || hashSlot >= 300 ? 1 : hashSlot < 200 ? 2 : -1;
            final long expectedEpoch = hashSlot < 100 || hashSlot >= 300 && hashSlot < 400 ? 7 : hashSlot < 200 ? 3 :
                hashSlot < 300 ? 0 : 9;
            assertEquals(expectedOwner, map.ownerOf(hashSlot), "slot " + hashSlot);
            assertEquals(expectedEpoch, map.rangeEpoch(hashSlot), "slot " + hashSlot);
            assertEquals(expectedEpoch, ClusterMap.rangeEpochOf(route), "slot " + hashSlot);
            final int owner = ClusterMap.ownerIndexOf(route);
            assertEquals(expectedOwner, owner < 0 ? -1 : map.nodeIdOf(owner), "slot " + hashSlot);
        }
        assertEquals(ClusterMap.NO_ROUTE, map.route(250), "a slot no range names");
        assertEquals(4, map.routeCount(), "node 1 at 7, node 2 at 3, unassigned, node 1 at 9");
        assertEquals(12, map.epoch());
        assertTrue(map.changes());
        assertEquals(new HostPort("10.0.0.2", 7400), map.controlAddress(2));
        assertEquals(new HostPort("10.0.0.3", 7400), map.controlAddress(3), "a member that is primary of nothing");
    }

    @Test
    void shouldCarryTheLargestEpochAnOwnershipWordHoldsAndRefuseALargerOne()
    {
        final ClusterMap map = ClusterMap.from(welcome(1, List.of(new ClusterNode(1, "h", 1, 0, LAST,
            SlotOwnershipTable.MAX_EPOCH, List.of())), 1), ANSWERED_AT);
        assertEquals(SlotOwnershipTable.MAX_EPOCH, map.rangeEpoch(LAST));
        assertEquals(1, map.ownerOf(LAST));

        final Welcome tooNew = welcome(1, List.of(new ClusterNode(1, "h", 1, 0, 10, 1, List.of()),
            new ClusterNode(2, "h", 2, 11, LAST, SlotOwnershipTable.MAX_EPOCH + 1, List.of())), 1);
        final KvException refused = assertThrows(KvException.class, () -> ClusterMap.from(tooNew, ANSWERED_AT));
        assertEquals(KvError.PROTOCOL_ERROR, refused.error());
        assertTrue(refused.getMessage().contains("range 11-" + LAST), refused.getMessage());
    }

    @Test
    void shouldKeepALiveSessionAtItsAddressForEachPrimaryOfThisMapOnly()
    {
        final Welcome welcome = welcome(1, List.of(new ClusterNode(1, "10.0.0.1", 7400, 0, 8191, 2, List.of()),
            new ClusterNode(2, "10.0.0.2", 7400, 8192, LAST, 2, List.of())), 4);
        final ClusterMap map = ClusterMap.from(welcome, ANSWERED_AT);
        final int ownerOfLast = ClusterMap.ownerIndexOf(map.route(LAST));
        final int ownerOfFirst = ClusterMap.ownerIndexOf(map.route(0));
        assertEquals(2, map.nodeIdOf(ownerOfLast));
        assertNull(map.liveSession(ownerOfLast));

        final AtomicBoolean connected = new AtomicBoolean(true);
        final NodeSession elsewhere = session(2, new HostPort("10.0.0.9", 7400), connected);
        assertFalse(map.keep(ownerOfLast, elsewhere), "the map places node 2 at another address");
        assertFalse(map.keep(ownerOfLast, null));
        assertNull(map.liveSession(ownerOfLast));

        final NodeSession node2 = session(2, new HostPort("10.0.0.2", 7400), connected);
        assertTrue(map.keep(ownerOfLast, node2));
        assertSame(node2, map.liveSession(ownerOfLast));
        assertNull(map.liveSession(ownerOfFirst), "another primary");
        assertNull(ClusterMap.from(welcome, ANSWERED_AT).liveSession(ownerOfLast), "a refreshed map starts empty");

        connected.set(false);
        assertNull(map.liveSession(ownerOfLast), "a session that died is not used");
        assertSame(node2, map.session(ownerOfLast));
        assertFalse(map.keep(ownerOfLast, node2));
    }

    /** A session of {@code nodeId} at {@code controlAddress} whose endpoint is connected while {@code connected}. */
    private static NodeSession session(final int nodeId, final HostPort controlAddress, final AtomicBoolean connected)
    {
        final NodeInfo info = new NodeInfo(nodeId, controlAddress, new InetSocketAddress("127.0.0.1", 1),
            PoolGeometry.plan(1 << 20, 64), null, 0, 1, 64, 1024);
        final NodeSession session = new NodeSession(info, true, null, null, null, null);
        session.endpoint((Endpoint)Proxy.newProxyInstance(Endpoint.class.getClassLoader(),
            new Class<?>[] {Endpoint.class}, (proxy, method, args) ->
            {
                if ("isConnected".equals(method.getName()))
                {
                    return connected.get();
                }
                throw new UnsupportedOperationException(method.getName());
            }));
        return session;
    }

    private static Welcome welcome(final int nodeId, final List<ClusterNode> ranges, final long clusterEpoch)
    {
        return new Welcome(nodeId, PoolGeometry.plan(1 << 20, 64), new byte[0], 1, 0,
            List.of(new TransportAddress("tcp", "10.0.0.1", 7401, new byte[0])), 64, 1024, ranges,
            new byte[Welcome.SESSION_TICKET_LENGTH], clusterEpoch, List.of(new MemberAddress(3, "10.0.0.3", 7400)));
    }
}

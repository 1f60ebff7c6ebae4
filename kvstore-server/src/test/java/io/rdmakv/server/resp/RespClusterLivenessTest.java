package io.rdmakv.server.resp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.transport.EndpointHandler;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CLUSTER answers follow the members the cluster declared failed ({@link RespNode#failedNodes}): such a node is
 * {@code master,fail ... disconnected} in CLUSTER NODES, {@code health failed} in CLUSTER SHARDS, left out of CLUSTER
 * SLOTS as a replica, and its slots are {@code cluster_slots_fail} in CLUSTER INFO; the same map with no failed member
 * shows every node connected and online. (With node processes and a {@code kill -9}: {@code RespClusterFailoverTest}.)
 */
class RespClusterLivenessTest
{
    private static final ClusterState STATE = new ClusterState(7, List.of(
        new ClusterMember(1, "10.0.0.1", 7401, 7501, 6001),
        new ClusterMember(2, "10.0.0.2", 7402, 7502, 6002),
        new ClusterMember(3, "10.0.0.3", 7403, 7503, 6003)), List.of(
        new SlotRange(0, 8191, 5, 1, List.of(3), List.of(), SlotRange.State.LIVE),
        new SlotRange(8192, 16383, 6, 2, List.of(3), List.of(), SlotRange.State.LIVE)));

    @Test
    void aFailedNodeIsFailAndDisconnected()
    {
        final RespCluster healthy = new RespCluster(node(Set.of()));
        final String before = text(healthy.command(args("CLUSTER", "NODES")));
        assertFalse(before.contains("fail") || before.contains("disconnected"), before);
        assertEquals(3, before.split(" connected").length - 1, before);
        assertFalse(text(healthy.command(args("CLUSTER", "SHARDS"))).contains("failed"));

        final RespCluster oneDead = new RespCluster(node(Set.of(3)));
        final String nodes = text(oneDead.command(args("CLUSTER", "NODES")));
        final String dead = RespCluster.nodeName(3) + " 10.0.0.3:6003@7403 master,fail - 0 0 7 disconnected";
        assertTrue(nodes.contains(dead + "\n"), nodes);
        assertTrue(nodes.contains(RespCluster.nodeName(1) + " 10.0.0.1:6001@7401 myself,master - 0 0 7 connected 0-8191"),
            nodes);
        assertTrue(nodes.contains(RespCluster.nodeName(2) + " 10.0.0.2:6002@7402 master - 0 0 7 connected 8192-16383"),
            nodes);

        final String shards = text(oneDead.command(args("CLUSTER", "SHARDS")));
        assertEquals(2, count(shards, "$6\r\nfailed\r\n"), "node 3, a replica of both shards, is failed: " + shards);
        assertEquals(2, count(shards, "$6\r\nonline\r\n"), shards);

        assertFalse(text(oneDead.command(args("CLUSTER", "SLOTS"))).contains(RespCluster.nodeName(3)),
            "a failed replica is not offered");
        assertTrue(text(healthy.command(args("CLUSTER", "SLOTS"))).contains(RespCluster.nodeName(3)));
    }

    @Test
    void aFailedNodeWithoutRangesIsAShardOfItsOwn()
    {
        final ClusterState afterFailover = new ClusterState(8, STATE.members(), List.of(
            new SlotRange(0, 8191, 9, 1, List.of(), List.of(), SlotRange.State.LIVE),
            new SlotRange(8192, 16383, 6, 2, List.of(1), List.of(), SlotRange.State.LIVE)));
        final String shards = text(new RespCluster(node(Set.of(3), afterFailover)).command(args("CLUSTER", "SHARDS")));
        assertTrue(shards.endsWith("*4\r\n$5\r\nslots\r\n*0\r\n$5\r\nnodes\r\n*1\r\n*14\r\n$2\r\nid\r\n$40\r\n" +
            RespCluster.nodeName(3) + "\r\n$4\r\nport\r\n:6003\r\n$2\r\nip\r\n$8\r\n10.0.0.3\r\n$8\r\nendpoint\r\n" +
            "$8\r\n10.0.0.3\r\n$4\r\nrole\r\n$6\r\nmaster\r\n$18\r\nreplication-offset\r\n:0\r\n$6\r\nhealth\r\n" +
            "$6\r\nfailed\r\n"), shards);
    }

    @Test
    void slotsOfAFailedPrimaryFail()
    {
        final String info = text(new RespCluster(node(Set.of(2))).command(args("CLUSTER", "INFO")));
        assertTrue(info.contains("cluster_state:fail\r\n"), info);
        assertTrue(info.contains("cluster_slots_ok:8192\r\ncluster_slots_pfail:0\r\ncluster_slots_fail:8192\r\n"),
            info);
        final String ok = text(new RespCluster(node(Set.of())).command(args("CLUSTER", "INFO")));
        assertTrue(ok.contains("cluster_state:ok\r\n") && ok.contains("cluster_slots_fail:0\r\n"), ok);
    }

    private static int count(final String s, final String part)
    {
        return s.split(java.util.regex.Pattern.quote(part), -1).length - 1;
    }

    private static byte[][] args(final String... words)
    {
        final byte[][] out = new byte[words.length][];
        for (int i = 0; i < words.length; i++)
        {
            out[i] = words[i].getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    private static String text(final RespReply reply)
    {
        final ByteBuf out = Unpooled.buffer();
        reply.write(out, 2);
        final String s = out.toString(StandardCharsets.UTF_8);
        out.release();
        return s;
    }

    private static RespNode node(final Set<Integer> failed)
    {
        return node(failed, STATE);
    }

    private static RespNode node(final Set<Integer> failed, final ClusterState state)
    {
        return new RespNode()
        {
            @Override
            public byte[] issueTicket()
            {
                throw new UnsupportedOperationException();
            }

            @Override
            public EndpointHandler requestThread()
            {
                throw new UnsupportedOperationException();
            }

            @Override
            public int nodeId()
            {
                return 1;
            }

            @Override
            public long keyCount()
            {
                return 0;
            }

            @Override
            public long poolBytes()
            {
                return 0;
            }

            @Override
            public String counters()
            {
                return "";
            }

            @Override
            public boolean clustered()
            {
                return true;
            }

            @Override
            public ClusterState clusterState()
            {
                return state;
            }

            @Override
            public Set<Integer> failedNodes()
            {
                return failed;
            }

            @Override
            public String advertisedHost()
            {
                return "10.0.0.1";
            }

            @Override
            public int respPort()
            {
                return 6001;
            }
        };
    }
}

package io.rdmakv.it.resp;

import io.rdmakv.it.cluster.LocalCluster;
import io.rdmakv.it.support.AwaitCount;
import io.rdmakv.it.support.ProcessJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.resps.ClusterShardInfo;
import redis.clients.jedis.resps.ClusterShardNodeInfo;
import redis.clients.jedis.exceptions.JedisException;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JedisCluster writing through a {@code kill -9} of a primary (three nodes, one backup per range): once the group
 * failed the range over, Jedis follows the new map ({@code CLUSTER SLOTS}, {@code -MOVED}) and writes the killed
 * node's slots again, and every SET it saw acknowledged, before the kill or after, reads back with its value. A
 * surviving node's CLUSTER NODES and CLUSTER SHARDS show the killed node {@code connected} / {@code online} before the
 * kill and {@code fail} / {@code disconnected} / {@code failed} once the group declared it failed, as Redis does.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class RespClusterFailoverTest
{
    private static final long LEASE_MS = 3_000;

    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryAcknowledgedSetAndFollowTheFailover() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.startServingResp(dir, 3, 1, LEASE_MS))
        {
            final LocalCluster.Range victimRange = LocalCluster.ranges(cluster.statusJson()).get(0);
            final int victim = victimRange.primary();
            final Set<HostAndPort> seeds = new HashSet<>();
            for (int id = 1; id <= 3; id++)
            {
                seeds.add(HostAndPort.from(cluster.resp(id)));
            }
            final Map<String, String> acknowledged = new ConcurrentHashMap<>();
            final AtomicBoolean writing = new AtomicBoolean(true);
            final AtomicLong killedAt = new AtomicLong();
            final AtomicLong victimWritesAfterKill = new AtomicLong();
            final AtomicLong failed = new AtomicLong();
            try (JedisCluster jedis = new JedisCluster(seeds, DefaultJedisClientConfig.builder()
                .socketTimeoutMillis(15_000).connectionTimeoutMillis(5_000).build(), 10, Duration.ofSeconds(60)))
            {
                final Thread writer = new Thread(() ->
                {
                    long i = 0;
                    while (writing.get())
                    {
                        final String key = "k" + i++;
                        final String value = "v-" + key + "-" + System.nanoTime();
                        try
                        {
                            final long invoked = System.nanoTime();
                            jedis.set(key, value);
                            acknowledged.put(key, value);
                            final long killed = killedAt.get();
                            if (killed != 0 && invoked - killed > 0 &&
                                victimRange.contains(JedisClusterCRC16.getSlot(key)))
                            {
                                victimWritesAfterKill.incrementAndGet();
                            }
                        }
                        catch (final JedisException ex)
                        {
                            failed.incrementAndGet(); // not acknowledged: may or may not be there, never checked
                        }
                    }
                }, "jedis-writer");
                writer.start();
                AwaitCount.atLeast(acknowledged::size, 300, Duration.ofMinutes(3));
                final int survivor = victim % 3 + 1;
                final String nodesBefore = clusterNodes(cluster, survivor);
                assertTrue(victimLine(nodesBefore, victim).contains(" connected") && !nodesBefore.contains("fail"),
                    "before the kill every node is connected: " + nodesBefore);
                assertEquals(Set.of("online"), healthOf(cluster, survivor, victim), "before the kill");
                killedAt.set(System.nanoTime());
                cluster.node(victim).kill();
                AwaitCount.atLeast(victimWritesAfterKill::get, 50, Duration.ofMinutes(3));
                writing.set(false);
                writer.join(TimeUnit.SECONDS.toMillis(60));

                final List<String> lost = new ArrayList<>();
                for (final Map.Entry<String, String> e : acknowledged.entrySet())
                {
                    if (!e.getValue().equals(jedis.get(e.getKey())))
                    {
                        lost.add(e.getKey());
                    }
                }
                System.out.printf("FIGURE resp failover: %d SETs acknowledged, %d failed, %d lost after the kill -9 " +
                    "of node %d%n", acknowledged.size(), failed.get(), lost.size(), victim);
                assertEquals(List.of(), lost.size() > 5 ? lost.subList(0, 5) : lost, lost.size() +
                    " acknowledged SETs lost");
            }
            final LocalCluster.Range after = LocalCluster.ranges(cluster.statusJson()).stream()
                .filter(r -> r.first() == victimRange.first()).findFirst().orElseThrow();
            assertTrue(after.primary() != victim && after.epoch() > victimRange.epoch(),
                "the range failed over: " + after);
            // The survivor learns the failover and the failed set in one committed state; it may learn it a renewal
            // after the status was read.
            final int survivor = victim % 3 + 1;
            AwaitCount.atLeast(() -> victimLine(clusterNodes(cluster, survivor), victim).contains(",fail") ? 1 : 0, 1,
                Duration.ofMinutes(1));
            final String line = victimLine(clusterNodes(cluster, survivor), victim);
            assertTrue(line.contains(" master,fail - ") && line.contains(" disconnected"), line);
            assertEquals(Set.of("failed"), healthOf(cluster, survivor, victim), "after the kill");
            System.out.printf("FIGURE resp liveness: node %d's CLUSTER NODES line for killed node %d: %s%n", survivor,
                victim, line);
        }
    }

    private static String clusterNodes(final LocalCluster cluster, final int nodeId)
    {
        try (Jedis jedis = new Jedis(HostAndPort.from(cluster.resp(nodeId))))
        {
            return jedis.clusterNodes();
        }
    }

    /** The CLUSTER NODES line of {@code nodeId} (Redis's 40-hex-digit id). */
    private static String victimLine(final String nodes, final int nodeId)
    {
        final String id = String.format("%040x", nodeId);
        return nodes.lines().filter(l -> l.startsWith(id + " ")).findFirst().orElse("(no line for " + id + ")");
    }

    /** The health CLUSTER SHARDS of node {@code askedNode} gives {@code nodeId} in each shard it is in. */
    private static Set<String> healthOf(final LocalCluster cluster, final int askedNode, final int nodeId)
    {
        final String id = String.format("%040x", nodeId);
        final Set<String> health = new HashSet<>();
        try (Jedis jedis = new Jedis(HostAndPort.from(cluster.resp(askedNode))))
        {
            for (final ClusterShardInfo shard : jedis.clusterShards())
            {
                for (final ClusterShardNodeInfo n : shard.getNodes())
                {
                    if (n.getId().equals(id))
                    {
                        health.add(n.getHealth());
                    }
                }
            }
        }
        return health;
    }
}

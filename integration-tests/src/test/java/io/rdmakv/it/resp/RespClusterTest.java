package io.rdmakv.it.resp;

import io.rdmakv.it.cluster.LocalCluster;
import io.rdmakv.it.support.ProcessJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.exceptions.JedisMovedDataException;
import redis.clients.jedis.util.JedisClusterCRC16;

import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * JedisCluster, a Redis Cluster client, against three real nodes (one backup per range) serving RESP: it learns the
 * slots from {@code CLUSTER SLOTS}, routes every key by itself to its primary (the nodes and Jedis agree on the
 * CRC16 slot), and writes and reads keys of every node. A plain connection to the wrong node gets {@code -MOVED} with
 * the owner's RESP address; keys of several slots get {@code -CROSSSLOT}, keys of one hash tag are served together.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class RespClusterTest
{
    private static final JedisClientConfig CONFIG = DefaultJedisClientConfig.builder().socketTimeoutMillis(60_000)
        .connectionTimeoutMillis(60_000).build();

    @TempDir
    Path dir;

    private static HostAndPort hostAndPort(final String address)
    {
        return HostAndPort.from(address);
    }

    @Test
    void shouldServeJedisClusterOnEveryNodeAndRedirectWhatANodeDoesNotOwn() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.startServingResp(dir, 3, 1, 3_000))
        {
            final Map<Integer, Integer> primaryOfHashSlot = new HashMap<>();
            final Map<Integer, String> respOf = new HashMap<>();
            for (int id = 1; id <= 3; id++)
            {
                respOf.put(id, cluster.resp(id));
            }
            for (final LocalCluster.Range r : LocalCluster.ranges(cluster.statusJson()))
            {
                for (int s = r.first(); s <= r.last(); s++)
                {
                    primaryOfHashSlot.put(s, r.primary());
                }
            }
            final Set<HostAndPort> seeds = new HashSet<>();
            respOf.values().forEach(a -> seeds.add(hostAndPort(a)));
            final int keys = 600;
            final Set<Integer> primariesWritten = new HashSet<>();
            try (JedisCluster jedis = new JedisCluster(seeds, CONFIG, 5, Duration.ofMinutes(1)))
            {
                for (int i = 0; i < keys; i++)
                {
                    assertEquals("OK", jedis.set("user:" + i, "value-" + i));
                    primariesWritten.add(primaryOfHashSlot.get(JedisClusterCRC16.getSlot("user:" + i)));
                }
                for (int i = 0; i < keys; i++)
                {
                    assertEquals("value-" + i, jedis.get("user:" + i), "user:" + i);
                }
                assertEquals(Set.of(1, 2, 3), primariesWritten, "keys of every node's ranges were written");
                assertEquals("OK", jedis.mset("{user1000}.following", "a", "{user1000}.followers", "b"));
                assertEquals(List.of("a", "b"), jedis.mget("{user1000}.following", "{user1000}.followers"));
                assertEquals(1L, jedis.del("user:0"));
            }
            // Plain connections: the owner serves its key, another node redirects to the owner's RESP address.
            final String key = "user:7";
            final int hashSlot = JedisClusterCRC16.getSlot(key);
            final int owner = primaryOfHashSlot.get(hashSlot);
            final int other = owner % 3 + 1;
            try (Jedis direct = new Jedis(hostAndPort(respOf.get(other)), CONFIG);
                Jedis home = new Jedis(hostAndPort(respOf.get(owner)), CONFIG))
            {
                assertEquals(hashSlot, direct.clusterKeySlot(key));
                final JedisMovedDataException moved = assertThrows(JedisMovedDataException.class,
                    () -> direct.get(key));
                assertEquals(hashSlot, moved.getSlot());
                assertEquals(hostAndPort(respOf.get(owner)), moved.getTargetNode());
                assertEquals("value-7", home.get(key));
                final JedisDataException cross = assertThrows(JedisDataException.class,
                    () -> home.mget("user:1", "user:2", "user:3", "user:4"));
                assertEquals("CROSSSLOT Keys in request don't hash to the same slot", cross.getMessage());
                final String info = home.clusterInfo();
                assertTrue(info.contains("cluster_state:ok") && info.contains("cluster_slots_assigned:16384"), info);
                final String nodes = home.clusterNodes();
                assertTrue(nodes.contains("myself,master"), nodes);
                assertEquals(3, nodes.strip().split("\n").length, nodes);
            }
        }
    }
}

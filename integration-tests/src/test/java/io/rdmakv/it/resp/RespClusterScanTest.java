package io.rdmakv.it.resp;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.rdmakv.it.cluster.LocalCluster;
import io.rdmakv.it.support.ProcessJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisClientConfig;
import redis.clients.jedis.JedisCluster;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.params.SetParams;
import redis.clients.jedis.resps.ScanResult;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * SCAN through Redis Cluster clients against three real nodes (one backup per range): JedisCluster's scan iteration
 * and Lettuce's cluster scan each scan every node separately, as they scan each master of a Redis Cluster; every
 * node answers the keys of the hash slots it is the primary of, so together they return every key once, and no
 * expired key. Each node alone returns only its own keys, and SET's conditional options work through the clients.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class RespClusterScanTest
{
    private static final JedisClientConfig CONFIG = DefaultJedisClientConfig.builder().socketTimeoutMillis(60_000)
        .connectionTimeoutMillis(60_000).build();
    private static final int KEYS = 3_000;

    @TempDir
    Path dir;

    @Test
    void shouldScanEveryKeyOfTheClusterWithJedisAndLettuceClusterClients() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.startServingResp(dir, 3, 1, 3_000))
        {
            final Set<HostAndPort> seeds = new HashSet<>();
            final List<RedisURI> uris = new ArrayList<>();
            for (int id = 1; id <= 3; id++)
            {
                final HostAndPort hp = HostAndPort.from(cluster.resp(id));
                seeds.add(hp);
                uris.add(RedisURI.builder().withHost(hp.getHost()).withPort(hp.getPort())
                    .withTimeout(Duration.ofSeconds(60)).build());
            }
            final Set<String> expected = new HashSet<>();
            try (JedisCluster jedis = new JedisCluster(seeds, CONFIG, 5, Duration.ofMinutes(1)))
            {
                for (int i = 0; i < KEYS; i++)
                {
                    assertEquals("OK", jedis.set("scan:" + i, "v"));
                    expected.add("scan:" + i);
                }
                for (int i = 0; i < 100; i++)
                {
                    assertEquals("OK", jedis.set("scan:expired:" + i, "v", SetParams.setParams().pxAt(1)));
                }
                // SET's options through the cluster client (Redis's answers).
                assertNull(jedis.set("opt:x", "v", SetParams.setParams().xx()));
                assertNull(jedis.setGet("opt:g", "a"));
                assertEquals("a", jedis.setGet("opt:g", "b"));
                assertEquals("b", jedis.getDel("opt:g"));
                assertNull(jedis.get("opt:g"));

                final Set<String> jedisSeen = new HashSet<>(jedis.scanIteration(100, "scan:*").collect(
                    new ArrayList<>()));
                assertEquals(expected, jedisSeen, "JedisCluster's scan of every node");
            }

            // Each node alone: only the keys of the hash slots it is the primary of; together every key, once.
            final Map<String, Integer> timesSeen = new HashMap<>();
            for (int id = 1; id <= 3; id++)
            {
                try (Jedis node = new Jedis(HostAndPort.from(cluster.resp(id)), CONFIG))
                {
                    String cursor = ScanParams.SCAN_POINTER_START;
                    int keysOfNode = 0;
                    do
                    {
                        final ScanResult<String> page = node.scan(cursor, new ScanParams().match("scan:*").count(500));
                        cursor = page.getCursor();
                        for (final String k : page.getResult())
                        {
                            timesSeen.merge(k, 1, Integer::sum);
                            keysOfNode++;
                        }
                    }
                    while (!cursor.equals(ScanParams.SCAN_POINTER_START));
                    assertTrue(keysOfNode > 0 && keysOfNode < KEYS, "node " + id + ": " + keysOfNode + " keys");
                }
            }
            assertEquals(expected, timesSeen.keySet());
            assertTrue(timesSeen.values().stream().allMatch(n -> n == 1), "no key returned by two nodes");

            handOffThroughSetNxAndGetDel(seeds);

            final RedisClusterClient client = RedisClusterClient.create(uris);
            try (StatefulRedisClusterConnection<String, String> connection = client.connect())
            {
                final RedisAdvancedClusterCommands<String, String> sync = connection.sync();
                final Set<String> lettuceSeen = new HashSet<>();
                KeyScanCursor<String> page = sync.scan(ScanArgs.Builder.matches("scan:*").limit(200));
                lettuceSeen.addAll(page.getKeys());
                while (!page.isFinished())
                {
                    page = sync.scan(page, ScanArgs.Builder.matches("scan:*").limit(200));
                    lettuceSeen.addAll(page.getKeys());
                }
                assertEquals(expected, lettuceSeen, "Lettuce's cluster scan");
                assertEquals(ScanCursor.FINISHED.isFinished(), page.isFinished());
            }
            finally
            {
                client.shutdown();
            }
        }
    }

    /**
     * A producer and a consumer hand values over one key of a replicated range: the producer writes value i with
     * {@code SET NX} (retrying while the key still holds i - 1), the consumer takes it with {@code GETDEL}. Each value
     * is returned exactly once, in order, whatever the interleaving: a GETDEL that deleted a value without returning
     * it would stall the count, one that returned it twice would break the order. On a primary with a backup the GET
     * may meet the pool behind RocksDB (it follows a write once the backup has it); GETDEL reads again then.
     */
    private static void handOffThroughSetNxAndGetDel(final Set<HostAndPort> seeds) throws Exception
    {
        final int values = 300;
        try (JedisCluster producer = new JedisCluster(seeds, CONFIG, 5, Duration.ofMinutes(1));
             JedisCluster consumer = new JedisCluster(seeds, CONFIG, 5, Duration.ofMinutes(1)))
        {
            final Thread writer = new Thread(() ->
            {
                for (int i = 1; i <= values; i++)
                {
                    while (producer.set("handoff", Integer.toString(i), SetParams.setParams().nx()) == null)
                    {
                        Thread.onSpinWait();
                    }
                }
            }, "producer");
            writer.start();
            final List<Integer> taken = new ArrayList<>();
            while (taken.size() < values)
            {
                final String v = consumer.getDel("handoff");
                if (v != null)
                {
                    taken.add(Integer.parseInt(v));
                }
            }
            writer.join();
            for (int i = 0; i < values; i++)
            {
                assertEquals(i + 1, taken.get(i), "value " + (i + 1) + " taken once, in order");
            }
            assertNull(consumer.get("handoff"));
        }
    }
}

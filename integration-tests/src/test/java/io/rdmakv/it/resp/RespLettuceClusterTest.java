package io.rdmakv.it.resp;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions.RefreshTrigger;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.sync.RedisAdvancedClusterCommands;
import io.rdmakv.client.HostPort;
import io.rdmakv.it.cluster.LocalCluster;
import io.rdmakv.it.support.AwaitCount;
import io.rdmakv.it.support.ProcessJanitor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Lettuce's {@link RedisClusterClient} (topology refresh on {@code -MOVED}, on persistent reconnects and every two
 * seconds) writing through an online move and a {@code kill -9} (three node processes, one backup per range). One
 * writer SETs {@value #KEYS} keys {@code lettuce:{i}} round and round; a SET that fails is written again with a new
 * value. While it runs, half of one node's range moves to the node that holds none of it ({@code move}, the learner
 * in sync, {@code finish-move}, LIVE at the new primary), then the primary of another range is killed and the group
 * promotes its backup. Lettuce must write both ranges again at their new primaries, and every SET it saw
 * acknowledged reads back, through a fresh client, with the last value acknowledged for its key.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class RespLettuceClusterTest
{
    /** A long lease: on a host at load 70 a short one expires falsely and a false failover cancels the move. */
    private static final long LEASE_MS = 10_000;
    private static final int KEYS = 240;
    /** Acknowledged SETs each phase must see on the range it changed, invoked after the change was committed. */
    private static final int WRITES_AFTER = 40;
    private static final Duration STATE_WAIT = Duration.ofMinutes(4);

    @TempDir
    Path dir;

    @Test
    void shouldFollowAMoveAndAFailoverAndLoseNoAcknowledgedSet() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.startServingResp(dir, 3, 1, LEASE_MS))
        {
            final List<LocalCluster.Range> initial = LocalCluster.ranges(cluster.statusJson());
            final Set<Integer> primariesOfKeys = new TreeSet<>();
            for (int i = 0; i < KEYS; i++)
            {
                primariesOfKeys.add(rangeOf(initial, SlotHash.getSlot(key(i))).primary());
            }
            assertEquals(Set.of(1, 2, 3), primariesOfKeys, "the keys lie in every node's ranges: " + initial);

            // The move: the first half of one range, to the node that is neither its primary nor its backup.
            final LocalCluster.Range source = initial.get(0);
            final int target = otherNode(source);
            final int moveFirst = source.first();
            final int moveLast = source.first() + (source.last() - source.first()) / 2;
            assertTrue(keysIn(new LocalCluster.Range(moveFirst, moveLast, 0, 0, List.of(), "")) > 0,
                "keys in slots " + moveFirst + "-" + moveLast);

            final Map<String, String> acknowledged = new ConcurrentHashMap<>();
            final AtomicLong acks = new AtomicLong();
            final AtomicLong failed = new AtomicLong();
            final Map<String, Long> failures = new ConcurrentHashMap<>();
            final Watch moved = new Watch(s -> s >= moveFirst && s <= moveLast);
            final Watch failedOver = new Watch(s -> false);
            final AtomicBoolean writing = new AtomicBoolean(true);

            final RedisClusterClient client = client(cluster, List.of(1, 2, 3));
            try (StatefulRedisClusterConnection<String, String> connection = client.connect())
            {
                final RedisAdvancedClusterCommands<String, String> redis = connection.sync();
                final Thread writer = new Thread(() ->
                {
                    long sequence = 0;
                    int i = 0;
                    while (writing.get())
                    {
                        final String key = key(i);
                        final String value = "v" + sequence++;
                        final long invoked = System.nanoTime();
                        try
                        {
                            redis.set(key, value);
                            acknowledged.put(key, value);
                            acks.incrementAndGet();
                            final int hashSlot = SlotHash.getSlot(key);
                            moved.count(hashSlot, invoked);
                            failedOver.count(hashSlot, invoked);
                            i = (i + 1) % KEYS;
                        }
                        catch (final RedisException ex)
                        {
                            // Not acknowledged: it may or may not be there; the key is written again, new value.
                            failed.incrementAndGet();
                            failures.merge(kind(ex), 1L, Long::sum);
                        }
                    }
                }, "lettuce-writer");
                writer.start();
                // Every key written twice first: the keys the two phases change are overwritten, not only created.
                AwaitCount.atLeast(acks::get, 2L * KEYS, STATE_WAIT);

                // (a) The online move, committed step by step as `rdmakv cluster move` / `finish-move` do.
                cluster.admin(target, "move " + moveFirst + " " + moveLast + " " + target);
                awaitRanges(cluster, rs -> rangeStarting(rs, moveFirst, r -> r.last() == moveLast &&
                    r.backups().contains(target)), "the target in sync with slots " + moveFirst + "-" + moveLast);
                cluster.admin(target, "finish-move " + moveFirst + " " + target);
                awaitRanges(cluster, rs -> rangeStarting(rs, moveFirst, r -> r.primary() == target &&
                    r.state().equals("LIVE")), "slots " + moveFirst + "-" + moveLast + " LIVE at node " + target);
                moved.start();
                AwaitCount.atLeast(moved.after::get, WRITES_AFTER, STATE_WAIT);

                // (b) kill -9 of the primary of another range, neither the moved range's new primary nor its slots.
                final List<LocalCluster.Range> afterMove = LocalCluster.ranges(cluster.statusJson());
                final LocalCluster.Range victimRange = afterMove.stream()
                    .filter(r -> r.primary() != target && r.first() > moveLast)
                    .filter(r -> keysIn(r) > 0)
                    .max((a, b) -> Boolean.compare(a.primary() != source.primary(), b.primary() != source.primary()))
                    .orElseThrow(() -> new AssertionError("no range to fail over: " + afterMove));
                final int victim = victimRange.primary();
                failedOver.range(victimRange::contains);
                cluster.node(victim).kill();
                awaitRanges(cluster, rs -> rangeStarting(rs, victimRange.first(), r -> r.primary() != victim &&
                    r.epoch() > victimRange.epoch()), "slots " + victimRange.first() + "-" + victimRange.last() +
                    " promoted off node " + victim);
                failedOver.start();
                AwaitCount.atLeast(failedOver.after::get, WRITES_AFTER, STATE_WAIT);

                writing.set(false);
                writer.join(TimeUnit.MINUTES.toMillis(2));
                assertFalse(writer.isAlive(), "the writer stopped");

                final List<Integer> live = new ArrayList<>(List.of(1, 2, 3));
                live.remove(Integer.valueOf(victim));
                final List<String> lost = readBack(cluster, live, acknowledged);
                System.out.printf("FIGURE resp lettuce: %d SETs acknowledged (%d keys), %d failed %s, %d lost; " +
                    "slots %d-%d moved node %d -> %d (%d acknowledged after), node %d killed (slots %d-%d, %d " +
                    "acknowledged after its promotion)%n", acks.get(), acknowledged.size(), failed.get(),
                    new TreeMap<>(failures), lost.size(), moveFirst, moveLast, source.primary(), target,
                    moved.after.get(), victim, victimRange.first(), victimRange.last(), failedOver.after.get());
                assertEquals(List.of(), lost.size() > 5 ? lost.subList(0, 5) : lost, lost.size() +
                    " acknowledged SETs lost");
            }
            finally
            {
                client.shutdown();
            }
        }
    }

    /** Counts the acknowledged SETs on a set of slots that were invoked after {@link #start}. */
    private static final class Watch
    {
        private final AtomicLong after = new AtomicLong();
        private final AtomicLong since = new AtomicLong(Long.MAX_VALUE);
        private volatile Predicate<Integer> hashSlots;

        Watch(final Predicate<Integer> hashSlots)
        {
            this.hashSlots = hashSlots;
        }

        void range(final Predicate<Integer> hashSlots)
        {
            this.hashSlots = hashSlots;
        }

        void start()
        {
            since.set(System.nanoTime());
        }

        void count(final int hashSlot, final long invoked)
        {
            final long from = since.get();
            if (from != Long.MAX_VALUE && invoked - from > 0 && hashSlots.test(hashSlot))
            {
                after.incrementAndGet();
            }
        }
    }

    /** The acknowledged keys whose value, read by a new client of the live nodes, is not the last acknowledged one. */
    private static List<String> readBack(final LocalCluster cluster, final List<Integer> live,
        final Map<String, String> acknowledged)
    {
        final List<String> lost = new ArrayList<>();
        final RedisClusterClient client = client(cluster, live);
        try (StatefulRedisClusterConnection<String, String> connection = client.connect())
        {
            final RedisAdvancedClusterCommands<String, String> redis = connection.sync();
            for (final Map.Entry<String, String> e : new TreeMap<>(acknowledged).entrySet())
            {
                final String value = get(redis, e.getKey());
                if (!e.getValue().equals(value))
                {
                    lost.add(e.getKey() + "=" + value + " (acknowledged " + e.getValue() + ")");
                }
            }
        }
        finally
        {
            client.shutdown();
        }
        return lost;
    }

    /** A GET, asked again when it fails (a range still reconciling after its promotion answers late); never a miss. */
    private static String get(final RedisAdvancedClusterCommands<String, String> redis, final String key)
    {
        for (int attempt = 1; ; attempt++)
        {
            try
            {
                return redis.get(key);
            }
            catch (final RedisException ex)
            {
                if (attempt == 5)
                {
                    throw ex;
                }
            }
        }
    }

    private static RedisClusterClient client(final LocalCluster cluster, final List<Integer> seeds)
    {
        final List<RedisURI> uris = new ArrayList<>();
        for (final int id : seeds)
        {
            final HostPort a = HostPort.parse(cluster.resp(id));
            uris.add(RedisURI.builder().withHost(a.host()).withPort(a.port()).withTimeout(Duration.ofSeconds(10))
                .build());
        }
        final RedisClusterClient client = RedisClusterClient.create(uris);
        client.setOptions(ClusterClientOptions.builder()
            .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                .enablePeriodicRefresh(Duration.ofSeconds(2))
                .enableAdaptiveRefreshTrigger(RefreshTrigger.MOVED_REDIRECT, RefreshTrigger.PERSISTENT_RECONNECTS)
                .adaptiveRefreshTriggersTimeout(Duration.ofSeconds(1))
                .refreshTriggersReconnectAttempts(2)
                .build())
            .socketOptions(SocketOptions.builder().connectTimeout(Duration.ofSeconds(5)).build())
            .timeoutOptions(TimeoutOptions.enabled(Duration.ofSeconds(10)))
            .build());
        return client;
    }

    /** The exception's class, and for an error reply its code ({@code BUSY}, {@code CLUSTERDOWN}, ...). */
    private static String kind(final RedisException ex)
    {
        final String message = String.valueOf(ex.getMessage());
        return ex.getClass().getSimpleName() + (ex instanceof RedisCommandExecutionException ?
            " " + message.split(" ", 2)[0] : "");
    }

    private static String key(final int i)
    {
        return "lettuce:{" + i + "}";
    }

    private static long keysIn(final LocalCluster.Range r)
    {
        long n = 0;
        for (int i = 0; i < KEYS; i++)
        {
            n += r.contains(SlotHash.getSlot(key(i))) ? 1 : 0;
        }
        return n;
    }

    private static LocalCluster.Range rangeOf(final List<LocalCluster.Range> ranges, final int hashSlot)
    {
        return ranges.stream().filter(r -> r.contains(hashSlot)).findFirst()
            .orElseThrow(() -> new AssertionError("slot " + hashSlot + " in no range: " + ranges));
    }

    private static int otherNode(final LocalCluster.Range r)
    {
        for (int id = 1; id <= 3; id++)
        {
            if (id != r.primary() && !r.backups().contains(id))
            {
                return id;
            }
        }
        throw new AssertionError("every node holds " + r);
    }

    private static boolean rangeStarting(final List<LocalCluster.Range> ranges, final int first,
        final Predicate<LocalCluster.Range> condition)
    {
        return ranges.stream().anyMatch(r -> r.first() == first && condition.test(r));
    }

    /** Polls the committed map (status json of a live node) until {@code condition} holds. */
    private static void awaitRanges(final LocalCluster cluster, final Predicate<List<LocalCluster.Range>> condition,
        final String what) throws InterruptedException
    {
        final long deadline = System.nanoTime() + STATE_WAIT.toNanos();
        String last = "";
        while (System.nanoTime() - deadline < 0)
        {
            try
            {
                last = cluster.statusJson();
                if (condition.test(LocalCluster.ranges(last)))
                {
                    return;
                }
            }
            catch (final IllegalStateException ex)
            {
                last = ex.getMessage(); // no live node answered this time
            }
            Thread.sleep(50);
        }
        throw new AssertionError("never " + what + " within " + STATE_WAIT + "; last status: " + last);
    }
}

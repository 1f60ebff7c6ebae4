package io.rdmakv.it.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import io.rdmakv.it.support.AwaitCount;
import io.rdmakv.protocol.layout.KeyHash;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Invariant 8 with real processes: three nodes, one backup per range, a client writing without pause; {@code kill -9}
 * of a primary that is not the coordination leader (default suite), or of the one that is (profile {@code -Pfaults}).
 * Every PUT acknowledged before, during or after the kill must be readable after the promotion, and the killed node's
 * first backup must be primary at a newer epoch. Prints the failover time (kill to the first write acknowledged on
 * the killed node's slots) for the figures; it is not asserted, as it stretches with the host's load.
 */
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class PrimaryKillFailoverTest
{
    private static final long LEASE_MS = 2000;

    @TempDir
    Path dir;

    @Test
    void shouldKeepEveryAcknowledgedPutAcrossKillOfAPrimary() throws Exception
    {
        killPrimaryMidWriteStream(false);
    }

    /** Leadership and data fail over at once (an election, while the killed node's lease runs out). */
    @Test
    @Tag("faults")
    @Tag("cluster-faults")
    void shouldKeepEveryAcknowledgedPutAcrossKillOfThePrimaryThatIsTheCoordinationLeader() throws Exception
    {
        killPrimaryMidWriteStream(true);
    }

    private void killPrimaryMidWriteStream(final boolean killLeader) throws Exception
    {
        try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, LEASE_MS);
             KvClient client = KvClient.builder().servers(cluster.seeds()).transport("tcp")
                 .requestTimeout(Duration.ofSeconds(15)).connectTimeout(Duration.ofSeconds(5)).build())
        {
            final String status = cluster.statusJson();
            final int leader = LocalCluster.leader(status);
            final List<LocalCluster.Range> ranges = LocalCluster.ranges(status);
            final LocalCluster.Range victimRange = ranges.stream().filter(r -> (r.primary() == leader) == killLeader)
                .findFirst().orElseThrow();
            final int victim = victimRange.primary();

            final Map<String, byte[]> acknowledged = new ConcurrentHashMap<>();
            final AtomicBoolean writing = new AtomicBoolean(true);
            final AtomicLong killedAt = new AtomicLong();
            final AtomicLong firstOnVictimSlotsAfterKill = new AtomicLong();
            final AtomicLong victimWritesAfterKill = new AtomicLong();
            final List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
            final Thread writer = new Thread(() ->
            {
                long i = 0;
                while (writing.get())
                {
                    final String key = "k" + i++;
                    final byte[] value = ("v-" + key + "-" + System.nanoTime()).getBytes(StandardCharsets.UTF_8);
                    final byte[] k = key.getBytes(StandardCharsets.UTF_8);
                    try
                    {
                        final long invoked = System.nanoTime();
                        client.put(k, value);
                        final long now = System.nanoTime();
                        acknowledged.put(key, value);
                        // Only a write invoked after the kill: one in flight then may be answered by the dying node.
                        final long killed = killedAt.get();
                        if (killed != 0 && invoked - killed > 0
                            && victimRange.contains(KeyHash.hashSlot(k)))
                        {
                            firstOnVictimSlotsAfterKill.compareAndSet(0, now);
                            victimWritesAfterKill.incrementAndGet();
                        }
                    }
                    catch (final KvException ex)
                    {
                        failures.add(ex); // not acknowledged: may or may not be there, never checked
                    }
                }
            }, "writer");
            writer.start();
            AwaitCount.atLeast(acknowledged::size, 300, Duration.ofMinutes(2));
            killedAt.set(System.nanoTime());
            cluster.node(victim).kill();
            AwaitCount.atLeast(victimWritesAfterKill::get, 50, Duration.ofMinutes(2));
            writing.set(false);
            writer.join(TimeUnit.SECONDS.toMillis(30));

            final double failoverMs = (firstOnVictimSlotsAfterKill.get() - killedAt.get()) / 1e6;
            System.out.printf("FIGURE failover: kill -9 of node %d (%s, primary of %d-%d) to the first acknowledged " +
                "write on its slots: %.0f ms (lease %d ms, drift 1.1, target lease + 1 s); %d PUTs acknowledged, %d " +
                "failed%n", victim, killLeader ? "the Ratis leader" : "not the leader", victimRange.first(),
                victimRange.last(), failoverMs, LEASE_MS, acknowledged.size(), failures.size());

            int lost = 0;
            final List<String> lostKeys = new ArrayList<>();
            for (final Map.Entry<String, byte[]> e : acknowledged.entrySet())
            {
                final byte[] read = client.get(e.getKey().getBytes(StandardCharsets.UTF_8));
                if (read == null || !Arrays.equals(read, e.getValue()))
                {
                    lost++;
                    if (lostKeys.size() < 5)
                    {
                        lostKeys.add(e.getKey());
                    }
                }
            }
            System.out.printf("FIGURE failover: %d of %d acknowledged PUTs lost after promotion%n", lost,
                acknowledged.size());
            assertTrue(lost == 0, lost + " acknowledged PUTs lost, e.g. " + lostKeys);
            // The failover time is a figure, not the property: on an oversubscribed host it stretches with the load.
            final LocalCluster.Range after = LocalCluster.ranges(cluster.statusJson()).stream()
                .filter(r -> r.first() == victimRange.first()).findFirst().orElseThrow();
            assertTrue(after.primary() == victimRange.backups().get(0) && after.epoch() > victimRange.epoch(),
                "the first backup is primary at a newer epoch: " + after);
        }
    }
}

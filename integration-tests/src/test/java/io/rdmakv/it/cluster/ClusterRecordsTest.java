package io.rdmakv.it.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.Versioned;
import io.rdmakv.client.WriteResult;
import io.rdmakv.protocol.layout.KeyHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Versions, conditional writes, counters and expiry on a replicated cluster of node processes (issue 32): written at
 * a range's primary, they are what its backup serves after {@code kill -9} of the primary. The promoted backup answers
 * the same version (so a condition against it still holds and one against an older version is refused), continues the
 * counter from the replicated value, keeps the expiry, and keeps an expired key absent.
 */
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ClusterRecordsTest
{
    private static final long LEASE_MS = 2000;

    @TempDir
    Path dir;

    @Test
    void shouldKeepVersionsCountersAndExpiriesAcrossKillOfAPrimary() throws Exception
    {
        // A backup late by the default replication timeout (1 s) on a loaded host would leave the in-sync set before
        // the kill, and the range could then not fail over (FENCED, no backup: seen once beside a qemu guest); the
        // failover follows the lease, not this timeout.
        try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, LEASE_MS, "replication.timeoutMs", "10000");
             KvClient client = KvClient.builder().servers(cluster.seeds()).transport("tcp")
                 .requestTimeout(Duration.ofSeconds(15)).connectTimeout(Duration.ofSeconds(5)).build())
        {
            final String status = cluster.statusJson();
            final int leader = LocalCluster.leader(status);
            // A primary that is not the coordination leader: the failover is the data's alone.
            final LocalCluster.Range range = LocalCluster.ranges(status).stream().filter(r -> r.primary() != leader)
                .findFirst().orElseThrow();
            final byte[] cas = keyIn(range, "cas");
            final byte[] counter = keyIn(range, "counter");
            final byte[] cached = keyIn(range, "cached");
            final byte[] expired = keyIn(range, "expired");

            final WriteResult first = client.putIfAbsent(cas, bytes("v1"));
            final WriteResult second = client.replace(cas, first.version(), bytes("v2"));
            assertTrue(second.applied(), second.toString());
            for (int i = 0; i < 7; i++)
            {
                client.increment(counter, 1);
            }
            client.put(cached, bytes("hot"), Duration.ofHours(1));
            client.put(expired, bytes("old"), Instant.now().minusSeconds(60));

            cluster.node(range.primary()).kill();
            final LocalCluster.Range after = awaitNewPrimary(cluster, range);
            assertTrue(after.primary() != range.primary() && after.epoch() > range.epoch(), after.toString());

            final Versioned read = client.getWithVersion(cas);
            assertArrayEquals(bytes("v2"), read.value());
            assertEquals(second.version(), read.version(), "the promoted backup answers the version written");
            assertEquals(WriteResult.refused(second.version()), client.replace(cas, first.version(), bytes("stale")));
            final WriteResult third = client.replace(cas, second.version(), bytes("v3"));
            assertTrue(third.applied() && third.version() > second.version(), third.toString());
            assertEquals(8, client.increment(counter, 1), "the counter continues from the replicated value");
            final long left = client.ttlMillis(cached);
            assertTrue(left > 0 && left <= Duration.ofHours(1).toMillis(), "the expiry survived: " + left);
            assertArrayEquals(bytes("hot"), client.get(cached));
            assertNull(client.get(expired), "an expired key stays absent at the new primary");
            assertEquals(-2, client.ttlMillis(expired));
        }
    }

    private static LocalCluster.Range awaitNewPrimary(final LocalCluster cluster, final LocalCluster.Range before)
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        while (true)
        {
            final List<LocalCluster.Range> ranges = LocalCluster.ranges(cluster.statusJson());
            final LocalCluster.Range now = ranges.stream().filter(r -> r.contains(before.first())).findFirst()
                .orElseThrow();
            if (now.primary() != before.primary() && "LIVE".equals(now.state()))
            {
                return now;
            }
            assertTrue(System.nanoTime() - deadline < 0, "no new LIVE primary of " + before + " within 3 min: " + now);
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
        }
    }

    /** A key of {@code name} whose hash slot lies in {@code range}. */
    private static byte[] keyIn(final LocalCluster.Range range, final String name)
    {
        for (int i = 0; ; i++)
        {
            final byte[] key = (name + "-" + i).getBytes(StandardCharsets.UTF_8);
            if (range.contains(KeyHash.hashSlot(key)))
            {
                return key;
            }
        }
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

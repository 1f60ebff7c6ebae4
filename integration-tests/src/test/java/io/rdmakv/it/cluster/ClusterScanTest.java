package io.rdmakv.it.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvEntry;
import io.rdmakv.client.ScanCursor;
import io.rdmakv.client.ScanResult;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.protocol.layout.KeyHash;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster-wide key scan on three node processes while a slot range moves (issue 32): the scan's cursor stands
 * inside the moving range when the move starts, steps on while the range is MIGRATING, and goes on after the cut-over,
 * where its hash slot is served by the new primary; every key present throughout is returned (at least once). The
 * order of steps is fixed by the test (scan, move, scan, finish-move, scan), not left to timing. Range and prefix
 * reads of one hash tag, MATCH, the async scan and the stream helper run on the same cluster. A second test kills the
 * primary under the cursor (kill -9): the scan goes on at the promoted backup and still returns every key.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class ClusterScanTest
{
    /** Long: on a loaded shared host a short lease expires falsely, and failovers would cancel the move. */
    private static final long LEASE_MS = 10_000;
    private static final int KEYS = 3000;
    private static final int COUNT = 25;
    /** As PrimaryKillFailoverTest's: the failover follows the lease. */
    private static final long FAILOVER_LEASE_MS = 2000;

    @TempDir
    Path dir;

    @Test
    void shouldReturnEveryKeyPresentThroughoutWhileARangeMovesUnderTheCursor() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, LEASE_MS);
             KvClient client = KvClient.builder().servers(cluster.seeds()).transport("tcp")
                 .requestTimeout(Duration.ofSeconds(30)).connectTimeout(Duration.ofSeconds(5)).build())
        {
            final LocalCluster.Range range = LocalCluster.ranges(cluster.statusJson()).stream()
                .filter(r -> r.primary() == 2).findFirst().orElseThrow();
            final Set<String> written = new HashSet<>();
            final List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < KEYS; i++)
            {
                final String key = "scan-" + i;
                written.add(key);
                puts.add(client.putAsync(key, "v" + i));
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
            final long inRange = written.stream().filter(k -> range.contains(KeyHash.hashSlot(utf8(k)))).count();
            assertTrue(inRange > 100, "keys in the moving range: " + inRange);

            // Before the move: scan until the cursor stands inside the range, with keys of it still ahead.
            final Map<String, Integer> seen = new HashMap<>();
            final int middle = range.first() + (range.last() - range.first()) / 2;
            ScanCursor cursor = ScanCursor.START;
            while (cursor.hashSlot() < middle)
            {
                cursor = step(client, cursor, seen);
            }
            assertFalse(cursor.isFinished());
            assertTrue(range.contains(cursor.hashSlot()), "cursor " + cursor + " inside " + range);

            cluster.admin(3, "move " + range.first() + " " + range.last() + " 1");
            for (int i = 0; i < 3; i++)
            {
                cursor = step(client, cursor, seen); // the range MIGRATING: its old primary still serves it
            }
            awaitRange(cluster, range.first(), r -> r.backups().contains(1));
            cluster.admin(3, "finish-move " + range.first() + " 1");
            awaitRange(cluster, range.first(), r -> r.primary() == 1 && r.state().equals("LIVE"));
            assertTrue(range.contains(cursor.hashSlot()), "the cursor is still inside the moved range: " + cursor);
            final int resumedAt = cursor.hashSlot();

            while (!cursor.isFinished())
            {
                cursor = step(client, cursor, seen);
            }
            final Set<String> missing = new HashSet<>(written);
            missing.removeAll(seen.keySet());
            assertEquals(Set.of(), missing, "every key present throughout the scan");
            assertEquals(written, seen.keySet(), "nothing else");
            assertTrue(seen.keySet().stream().anyMatch(k -> KeyHash.hashSlot(utf8(k)) > resumedAt &&
                range.contains(KeyHash.hashSlot(utf8(k)))), "keys of the moved range after the cursor were read at node 1");

            // The stream helper and MATCH, after the move.
            final Set<String> streamed = client.scanKeys("scan-1*", 100).map(ClusterScanTest::text)
                .collect(Collectors.toSet());
            assertEquals(written.stream().filter(k -> k.startsWith("scan-1")).collect(Collectors.toSet()), streamed);
            // The async scan, to the end.
            final Set<String> async = new HashSet<>();
            ScanCursor at = ScanCursor.START;
            while (!at.isFinished())
            {
                final ScanResult page = client.scanAsync(at, "scan-2??", 500).get(1, TimeUnit.MINUTES);
                page.keys().forEach(k -> async.add(text(k)));
                // The cursor's text round-trips; "0" is both the start and the end, as Redis's.
                at = page.cursor().isFinished() ? page.cursor() : ScanCursor.parse(page.cursor().toString());
            }
            assertEquals(written.stream().filter(k -> k.matches("scan-2..")).collect(Collectors.toSet()), async);

            // Range and prefix reads of one hash tag, in key order, on the moved range's new primary too.
            for (int i = 0; i < 50; i++)
            {
                client.put(String.format("{user7}:item:%03d", i), "item " + i);
            }
            client.put("{user7}:other", "x");
            final List<KvEntry> range10 = client.range("{user7}:item:010", "{user7}:item:020", 100);
            assertEquals(10, range10.size());
            for (int i = 0; i < 10; i++)
            {
                assertEquals(String.format("{user7}:item:%03d", 10 + i), text(range10.get(i).key()));
                assertEquals("item " + (10 + i), text(range10.get(i).value()));
            }
            final List<KvEntry> items = client.prefix("{user7}:item:", 1000);
            assertEquals(50, items.size());
            assertEquals(7, client.prefixAsync(utf8("{user7}:item:"), 7).get(1, TimeUnit.MINUTES).size());
            assertThrows(IllegalArgumentException.class, () -> client.range("{a}x", "{b}y", 10), "CROSSSLOT");
            assertThrows(IllegalArgumentException.class, () -> client.prefix("user7:", 10), "no hash tag");
        }
    }

    /**
     * kill -9 of a primary (not the coordination leader) while the scan's cursor stands inside its range: the next
     * calls go on at the promoted backup, which holds every acknowledged key, and every key is returned.
     */
    @Test
    void shouldReturnEveryKeyPresentThroughoutWhenThePrimaryUnderTheCursorIsKilled() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, FAILOVER_LEASE_MS);
             KvClient client = KvClient.builder().servers(cluster.seeds()).transport("tcp")
                 .requestTimeout(Duration.ofSeconds(30)).connectTimeout(Duration.ofSeconds(5)).build())
        {
            final String status = cluster.statusJson();
            final int leader = LocalCluster.leader(status);
            final LocalCluster.Range range = LocalCluster.ranges(status).stream()
                .filter(r -> r.primary() != leader && !r.backups().isEmpty()).findFirst().orElseThrow();
            final Set<String> written = new HashSet<>();
            final List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (int i = 0; i < KEYS; i++)
            {
                final String key = "fo-" + i;
                written.add(key);
                puts.add(client.putAsync(key, "v" + i));
            }
            CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);

            final Map<String, Integer> seen = new HashMap<>();
            final int middle = range.first() + (range.last() - range.first()) / 2;
            ScanCursor cursor = ScanCursor.START;
            while (cursor.hashSlot() < middle)
            {
                cursor = step(client, cursor, seen);
            }
            assertTrue(range.contains(cursor.hashSlot()), "cursor " + cursor + " inside " + range);
            cluster.node(range.primary()).kill();
            final int resumedAt = cursor.hashSlot();
            while (!cursor.isFinished())
            {
                cursor = step(client, cursor, seen);
            }
            final Set<String> missing = new HashSet<>(written);
            missing.removeAll(seen.keySet());
            assertEquals(Set.of(), missing, "every key present throughout the scan");
            final LocalCluster.Range after = LocalCluster.ranges(cluster.statusJson()).stream()
                .filter(r -> r.first() == range.first()).findFirst().orElseThrow();
            assertTrue(after.primary() == range.backups().get(0) && after.epoch() > range.epoch(),
                "the range failed over to its backup: " + after);
            assertTrue(seen.keySet().stream().anyMatch(k -> KeyHash.hashSlot(utf8(k)) > resumedAt &&
                range.contains(KeyHash.hashSlot(utf8(k)))), "keys after the cursor were read at the new primary");
        }
    }

    private static ScanCursor step(final KvClient client, final ScanCursor cursor, final Map<String, Integer> seen)
    {
        final ScanResult result = client.scan(cursor, (String)null, COUNT);
        assertTrue(result.keys().size() <= COUNT, "COUNT bounds a step: " + result.keys().size());
        result.keys().forEach(k -> seen.merge(text(k), 1, Integer::sum));
        return result.cursor();
    }

    private static void awaitRange(final LocalCluster cluster, final int first,
        final Predicate<LocalCluster.Range> condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
        while (System.nanoTime() - deadline < 0)
        {
            final LocalCluster.Range r = LocalCluster.ranges(cluster.statusJson()).stream()
                .filter(x -> x.first() == first).findFirst().orElse(null);
            if (r != null && condition.test(r))
            {
                return;
            }
            Thread.sleep(20); // polling the committed map for a state, not waiting for time to pass
        }
        throw new AssertionError("range " + first + " never reached the expected state: " + cluster.statusJson());
    }

    private static byte[] utf8(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final byte[] b)
    {
        return new String(b, StandardCharsets.UTF_8);
    }
}

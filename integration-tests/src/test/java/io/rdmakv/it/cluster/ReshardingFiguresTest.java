package io.rdmakv.it.cluster;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.protocol.layout.KeyHash;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Resharding figures (issue 12): a range holding {@value #KEYS} keys of {@value #VALUE_BYTES} bytes moves from node 2
 * to node 1 while one client runs PUTs and GETs over every range; prints the MiB/s moved (catch-up: checkpoint and
 * tail, from the move to the target in sync) and the workload's p50/p99 before and during the move (move to LIVE at
 * the new primary, cut-over included). Asserts only what must hold: every key of the range readable afterwards.
 * Not in the default suite (tag cluster-faults):
 * <pre>
 *   mvn -B -o -pl integration-tests -am verify -Dit.excludedGroups=softroce -Dtest=ReshardingFiguresTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@Tag("cluster-faults")
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ReshardingFiguresTest
{
    private static final int KEYS = 16_384;
    private static final int VALUE_BYTES = 1024;
    private static final long BEFORE_MILLIS = 15_000;

    @TempDir
    Path dir;

    @Test
    void shouldMoveALoadedRangeUnderAWorkloadAndPrintItsFigures() throws Exception
    {
        // A 10 s lease: on a host at load 70 a 2 s lease expires falsely and the failovers cancel the move.
        try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, 10_000, "pool.size", "128MiB");
             KvClient loader = client(cluster))
        {
            final LocalCluster.Range range = LocalCluster.ranges(cluster.statusJson()).stream()
                .filter(r -> r.primary() == 2).findFirst().orElseThrow();
            final List<byte[]> keys = new ArrayList<>();
            for (int i = 0; keys.size() < KEYS; i++)
            {
                final byte[] k = ("moving-" + i).getBytes(StandardCharsets.UTF_8);
                if (range.contains(KeyHash.hashSlot(k)))
                {
                    keys.add(k);
                }
            }
            for (int from = 0; from < keys.size(); from += 64)
            {
                load(loader, keys.subList(from, Math.min(keys.size(), from + 64)));
            }
            final double movedMiB = (double)KEYS * (VALUE_BYTES + 12) / (1 << 20);

            final AtomicReference<Histogram> phase = new AtomicReference<>(new Histogram(3));
            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicLong failed = new AtomicLong();
            final Thread workload = new Thread(() -> runWorkload(cluster, phase, running, failed), "workload");
            workload.start();
            Thread.sleep(BEFORE_MILLIS); // the "before" window's length: a measurement interval, not a wait for state
            final Histogram before = phase.getAndSet(new Histogram(3));

            final long moveStart = System.nanoTime();
            cluster.admin(3, "move " + range.first() + " " + range.last() + " 1");
            awaitRange(cluster, range.first(), r -> r.backups().contains(1));
            final long inSync = System.nanoTime();
            cluster.admin(3, "finish-move " + range.first() + " 1");
            awaitRange(cluster, range.first(), r -> r.primary() == 1 && rangeLive(cluster, range.first()));
            final long live = System.nanoTime();
            final Histogram during = phase.getAndSet(new Histogram(3));
            running.set(false);
            workload.join(TimeUnit.MINUTES.toMillis(1));

            final double catchUpSeconds = (inSync - moveStart) / 1e9;
            System.out.printf("FIGURE resharding: %d keys x %d B (%.1f MiB) of slots %d-%d moved node 2 -> 1 in %.2f s " +
                "to in sync (%.1f MiB/s), %.2f s to LIVE at node 1 (cut-over %.0f ms)%n", KEYS, VALUE_BYTES,
                movedMiB, range.first(), range.last(), catchUpSeconds, movedMiB / catchUpSeconds,
                (live - moveStart) / 1e9, (live - inSync) / 1e6);
            System.out.printf("FIGURE resharding workload (1 client, 50%% PUT / 50%% GET, 100 B, all ranges): before " +
                "p50 %.0f us p99 %.0f us (%d ops); during the move p50 %.0f us p99 %.0f us max %.0f ms (%d ops); " +
                "%d calls failed%n", before.getValueAtPercentile(50) / 1e3, before.getValueAtPercentile(99) / 1e3,
                before.getTotalCount(), during.getValueAtPercentile(50) / 1e3, during.getValueAtPercentile(99) / 1e3,
                during.getMaxValue() / 1e6, during.getTotalCount(), failed.get());

            for (int i = 0; i < keys.size(); i += 97)
            {
                assertArrayEquals(value(keys.get(i)), loader.get(keys.get(i)), "key " + i + " after the move");
            }
            assertTrue(during.getTotalCount() > 0, "the workload ran during the move");
        }
    }

    /**
     * PUT {@code batch} (64 in flight); a PUT that failed (a node busy past its lease on a loaded host) is written again:
     * loading is not what is measured.
     */
    private static void load(final KvClient loader, final List<byte[]> batch) throws InterruptedException
    {
        final List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (final byte[] k : batch)
        {
            puts.add(loader.putAsync(k, value(k)));
        }
        for (int i = 0; i < batch.size(); i++)
        {
            try
            {
                puts.get(i).get(2, TimeUnit.MINUTES);
            }
            catch (final java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex)
            {
                loader.put(batch.get(i), value(batch.get(i)));
            }
        }
    }

    private static void runWorkload(final LocalCluster cluster, final AtomicReference<Histogram> phase,
        final AtomicBoolean running, final AtomicLong failed)
    {
        final SplittableRandom random = new SplittableRandom(7);
        final byte[] value = new byte[100];
        try (KvClient client = client(cluster))
        {
            while (running.get())
            {
                final byte[] key = ("w-" + random.nextInt(1000)).getBytes(StandardCharsets.UTF_8);
                final long start = System.nanoTime();
                try
                {
                    if (random.nextBoolean())
                    {
                        client.put(key, value);
                    }
                    else
                    {
                        client.get(key);
                    }
                    phase.get().recordValue(System.nanoTime() - start);
                }
                catch (final KvException ex)
                {
                    if (failed.incrementAndGet() <= 3)
                    {
                        System.out.printf("FIGURE resharding workload: a call failed after %.0f ms: %s%n",
                            (System.nanoTime() - start) / 1e6, ex);
                    }
                }
            }
        }
    }

    private static KvClient client(final LocalCluster cluster)
    {
        return KvClient.builder().servers(cluster.seeds()).transport("tcp").requestTimeout(Duration.ofSeconds(30))
            .connectTimeout(Duration.ofSeconds(5)).build();
    }

    private static byte[] value(final byte[] key)
    {
        final byte[] v = new byte[VALUE_BYTES];
        Arrays.fill(v, (byte)key[key.length - 1]);
        System.arraycopy(key, 0, v, 0, key.length);
        return v;
    }

    private static boolean rangeLive(final LocalCluster cluster, final int first)
    {
        return LocalCluster.ranges(cluster.statusJson()).stream()
            .anyMatch(r -> r.first() == first && r.state().equals("LIVE"));
    }

    private static void awaitRange(final LocalCluster cluster, final int first,
        final java.util.function.Predicate<LocalCluster.Range> condition) throws InterruptedException
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
            Thread.sleep(20);
        }
        throw new AssertionError("range " + first + " never reached the expected state: " + cluster.statusJson());
    }

}

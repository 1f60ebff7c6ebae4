package io.rdmakv.server;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.replication.ScriptedCluster;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * PUT latency at one connection, replication factor 2 against 1, in the same run: three in-process nodes, the range
 * switched block by block between three arms so all see the same machine:
 * <pre>
 *   RF 1        node 1 primary, no backup
 *   RF 2        node 1 primary, node 2 in sync   (node 1: replication.ackPollMicros at its default, 0: sleeps until
 *                                                 the backup's answer wakes it)
 *   RF 2 poll   node 3 primary, node 2 in sync   (node 3: replication.ackPollMicros=200: polls, yielding, for it)
 *   blocks: A B C C B A, twice (each arm sees the machine before and after the others)
 * </pre>
 * Prints the figures; asserts what replication must keep (every RF 2 write on the backup, no RF 1 write there).
 * <pre>
 *   mvn -B -q -o -pl kvstore-server -am test -Dtest=ReplicationLatencyTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class ReplicationLatencyTest
{
    private static final int WARM_UP = 2_000;
    private static final int PER_BLOCK = 2_000;
    private static final int RF1 = 0;
    private static final int RF2 = 1;
    private static final int RF2_POLL = 2;
    private static final String[] ARM = {"RF 1", "RF 2", "RF 2 poll 200"};
    private static final int[] ORDER = {RF1, RF2, RF2_POLL, RF2_POLL, RF2, RF1,
        RF1, RF2, RF2_POLL, RF2_POLL, RF2, RF1};
    private static final int BLOCKS = ORDER.length;
    private static final int PER_ARM = BLOCKS / 3 * PER_BLOCK;

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void shouldMeasurePutLatencyWithOneBackupAgainstNone() throws Exception
    {
        try (ScriptedCluster cluster = new ScriptedCluster();
            KvServer primary = KvServer.start(KvServerTest.testConfig(dir.resolve("n1"), Map.of("node.id", "1")),
                cluster.viewOf(1));
            KvServer backup = KvServer.start(KvServerTest.testConfig(dir.resolve("n2"), Map.of("node.id", "2")),
                cluster.viewOf(2));
            KvServer pollingPrimary = KvServer.start(KvServerTest.testConfig(dir.resolve("n3"), Map.of("node.id", "3",
                "replication.ackPollMicros", "200")), cluster.viewOf(3));
            RawClient client = RawClient.attachedYielding(primary);
            RawClient pollingClient = RawClient.attachedYielding(pollingPrimary))
        {
            final var members = List.of(ReplicationTest.member(1, primary), ReplicationTest.member(2, backup),
                ReplicationTest.member(3, pollingPrimary));
            final byte[] value = new byte[100];
            long epoch = 1;
            final long[][] samples = new long[3][PER_ARM];
            final int[] counts = new int[3];
            final long[] blockP50 = new long[BLOCKS];
            for (int block = -3; block < BLOCKS; block++)
            {
                final int arm = block < 0 ? block + 3 : ORDER[block];
                cluster.set(ScriptedCluster.oneRange(++epoch, members, arm == RF2_POLL ? 3 : 1,
                    arm == RF1 ? List.of() : List.of(2), List.of()));
                final RawClient writer = arm == RF2_POLL ? pollingClient : client;
                final int n = block < 0 ? WARM_UP : PER_BLOCK;
                for (int i = 0; i < n; i++)
                {
                    final byte[] key = ("a" + arm + "-b" + block + "-" + i).getBytes(StandardCharsets.US_ASCII);
                    final long start = System.nanoTime();
                    assertEquals(Status.OK, writer.put(key, value).status());
                    final long took = System.nanoTime() - start;
                    if (block >= 0)
                    {
                        samples[arm][counts[arm]++] = took;
                    }
                }
                if (block >= 0)
                {
                    blockP50[block] = percentile(Arrays.copyOfRange(samples[arm], counts[arm] - n, counts[arm]), n, 50);
                }
                final byte[] last = ("a" + arm + "-b" + block + "-" + (n - 1)).getBytes(StandardCharsets.US_ASCII);
                if (arm == RF1)
                {
                    assertNull(backup.store().get(last), "an RF 1 write goes to no backup");
                }
                else
                {
                    assertArrayEquals(value, backup.store().get(last), "an RF 2 write is on the backup");
                }
            }
            print(samples, counts, blockP50);
            for (int arm = 0; arm < 3; arm++)
            {
                assertEquals(PER_ARM, counts[arm]);
            }
        }
    }

    private static void print(final long[][] samples, final int[] counts, final long[] blockP50)
    {
        final long[] p50 = new long[3];
        System.out.printf("replication PUT latency, 1 connection, 100 B values, %d PUTs per arm, blocks of %d " +
            "(A B C C B A x 2):%n", PER_ARM, PER_BLOCK);
        for (int arm = 0; arm < 3; arm++)
        {
            p50[arm] = percentile(samples[arm], counts[arm], 50);
            System.out.printf("  %-13s p50 %.1f us, p99 %.1f us%n", ARM[arm], p50[arm] / 1e3,
                percentile(samples[arm], counts[arm], 99) / 1e3);
        }
        System.out.printf("  RF2/RF1 p50 = %.2fx; RF2 poll 200/RF1 p50 = %.2fx%n", (double)p50[RF2] / p50[RF1],
            (double)p50[RF2_POLL] / p50[RF1]);
        for (int h = 0; h < BLOCKS; h += 6)
        {
            // Within one A B C C B A half: each arm's two blocks.
            final double rf1 = blockP50[h] + blockP50[h + 5];
            System.out.printf("  ABCCBA %d: RF 1 p50 %.1f / %.1f us, RF 2 %.1f / %.1f us (%.2fx), RF 2 poll 200 " +
                "%.1f / %.1f us (%.2fx)%n", h / 6 + 1, blockP50[h] / 1e3, blockP50[h + 5] / 1e3, blockP50[h + 1] / 1e3,
                blockP50[h + 4] / 1e3, (blockP50[h + 1] + blockP50[h + 4]) / rf1, blockP50[h + 2] / 1e3,
                blockP50[h + 3] / 1e3, (blockP50[h + 2] + blockP50[h + 3]) / rf1);
        }
    }

    private static long percentile(final long[] samples, final int count, final int p)
    {
        final long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        return sorted[Math.min(count - 1, (int)((long)count * p / 100))];
    }
}

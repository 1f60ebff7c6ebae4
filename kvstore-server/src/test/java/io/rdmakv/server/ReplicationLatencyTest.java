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
 * PUT latency at one connection, replication factor 2 against 1, in the same run: the same two in-process nodes,
 * the range switched between "no backup" and "node 2 in sync" block by block in A B B A order, so both see the same machine.
 * Prints the figures; asserts what replication must keep (every RF 2 write on the backup, no RF 1 write there).
 * The primary polls for acknowledgements {@code -DackPollMicros} (default 200, the setting's default; 0 = sleep at once).
 * <pre>
 *   mvn -B -q -o -pl kvstore-server -am test -Dtest=ReplicationLatencyTest -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
class ReplicationLatencyTest
{
    private static final int WARM_UP = 2_000;
    private static final int PER_BLOCK = 2_000;
    /** A B B A A B B A: each RF sees the machine before and after the other, twice. */
    private static final int[] ORDER = {1, 2, 2, 1, 1, 2, 2, 1};
    private static final int BLOCKS = ORDER.length;

    @TempDir
    Path dir;

    @Test
    @Timeout(300)
    void shouldMeasurePutLatencyWithOneBackupAgainstNone() throws Exception
    {
        try (ScriptedCluster cluster = new ScriptedCluster();
            KvServer primary = KvServer.start(KvServerTest.testConfig(dir.resolve("n1"), Map.of("node.id", "1",
                "replication.ackPollMicros", System.getProperty("ackPollMicros", "200"))), cluster.viewOf(1));
            KvServer backup = KvServer.start(KvServerTest.testConfig(dir.resolve("n2"), Map.of("node.id", "2")),
                cluster.viewOf(2));
            RawClient client = RawClient.attachedYielding(primary))
        {
            final var members = List.of(ReplicationTest.member(1, primary), ReplicationTest.member(2, backup));
            final byte[] value = new byte[100];
            long epoch = 1;
            final long[][] samples = new long[2][BLOCKS / 2 * PER_BLOCK];
            final int[] counts = new int[2];
            final long[] blockP50 = new long[BLOCKS];
            for (int block = -2; block < BLOCKS; block++)
            {
                final int rf = block < 0 ? (block & 1) + 1 : ORDER[block];
                cluster.set(ScriptedCluster.oneRange(++epoch, members, 1, rf == 2 ? List.of(2) : List.of(),
                    List.of()));
                final int n = block < 0 ? WARM_UP : PER_BLOCK;
                for (int i = 0; i < n; i++)
                {
                    final byte[] key = ("rf" + rf + "-b" + block + "-" + i).getBytes(StandardCharsets.US_ASCII);
                    final long start = System.nanoTime();
                    assertEquals(Status.OK, client.put(key, value).status());
                    final long took = System.nanoTime() - start;
                    if (block >= 0)
                    {
                        samples[rf - 1][counts[rf - 1]++] = took;
                    }
                }
                if (block >= 0)
                {
                    blockP50[block] = percentile(Arrays.copyOfRange(samples[rf - 1], counts[rf - 1] - n,
                        counts[rf - 1]), n, 50);
                }
                final byte[] last = ("rf" + rf + "-b" + block + "-" + (n - 1)).getBytes(StandardCharsets.US_ASCII);
                if (rf == 2)
                {
                    assertArrayEquals(value, backup.store().get(last), "an RF 2 write is on the backup");
                }
                else
                {
                    assertNull(backup.store().get(last), "an RF 1 write goes to no backup");
                }
            }
            final long p50rf1 = percentile(samples[0], counts[0], 50);
            final long p50rf2 = percentile(samples[1], counts[1], 50);
            System.out.printf("replication PUT latency, 1 connection, 100 B values, %d PUTs each, ABBA blocks of %d, " +
                "ack poll %s us:%n" +
                "  RF 1: p50 %.1f us, p99 %.1f us%n  RF 2: p50 %.1f us, p99 %.1f us%n  RF2/RF1 p50 = %.2fx%n",
                counts[0], PER_BLOCK, System.getProperty("ackPollMicros", "200"), p50rf1 / 1e3,
                percentile(samples[0], counts[0], 99) / 1e3, p50rf2 / 1e3, percentile(samples[1], counts[1], 99) / 1e3,
                (double)p50rf2 / p50rf1);
            for (int q = 0; q + 3 < BLOCKS; q += 4)
            {
                // Within one A B B A quadruple: RF 2's two blocks against RF 1's two around them.
                System.out.printf("  ABBA %d: RF 1 p50 %.1f / %.1f us, RF 2 p50 %.1f / %.1f us, ratio %.2fx%n", q / 4 + 1,
                    blockP50[q] / 1e3, blockP50[q + 3] / 1e3, blockP50[q + 1] / 1e3, blockP50[q + 2] / 1e3,
                    (double)(blockP50[q + 1] + blockP50[q + 2]) / (blockP50[q] + blockP50[q + 3]));
            }
            assertEquals(BLOCKS / 2 * PER_BLOCK, counts[1]);
            assertEquals(BLOCKS / 2 * PER_BLOCK, counts[0]);
        }
    }

    private static long percentile(final long[] samples, final int count, final int p)
    {
        final long[] sorted = Arrays.copyOf(samples, count);
        Arrays.sort(sorted);
        return sorted[Math.min(count - 1, (int)((long)count * p / 100))];
    }
}

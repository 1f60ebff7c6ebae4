package io.rdmakv.it.cluster;

import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.server.cluster.ClusterMember;
import io.rdmakv.server.cluster.ClusterState;
import io.rdmakv.server.cluster.SlotRange;
import io.rdmakv.server.cluster.ratis.ClusterCommand;
import io.rdmakv.server.cluster.ratis.CommandCodec;
import io.rdmakv.server.cluster.ratis.CommandReply;
import io.rdmakv.server.cluster.ratis.CoordState;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The coordination group's load, for the scaling notes in docs/cluster.md: three idle nodes (every one a voter) for a
 * minute; prints the committed renewals per second, each node's CPU (leader apart), the encoded size of a renewal
 * and of the whole state (the snapshot), and the state's size for 100 and 1,000 nodes (computed with the same codec).
 * Not in the default suite (tag cluster-faults):
 * <pre>
 *   mvn -B -o -pl integration-tests -am verify -Dit.excludedGroups=softroce -Dtest=RatisLoadFiguresTest \
 *     -Dsurefire.failIfNoSpecifiedTests=false
 * </pre>
 */
@Tag("cluster-faults")
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 10, unit = TimeUnit.MINUTES)
class RatisLoadFiguresTest
{
    private static final long WINDOW_MILLIS = 60_000;
    private static final Pattern RENEWALS = Pattern.compile("\"id\":(\\d+),[^}]*\"renewals\":(\\d+)");

    @TempDir
    Path dir;

    @Test
    void shouldMeasureTheGroupsLoadOnIdleNodes() throws Exception
    {
        try (LocalCluster cluster = LocalCluster.start(dir, 3, 1, 2000))
        {
            final int leader = LocalCluster.leader(cluster.statusJson());
            final long renewalsBefore = renewals(cluster.statusJson());
            final long[] cpuBefore = new long[3];
            for (int i = 0; i < 3; i++)
            {
                cpuBefore[i] = cpuTicks(cluster.node(i + 1).pid());
            }
            final long start = System.nanoTime();
            Thread.sleep(WINDOW_MILLIS); // the measurement interval
            final double seconds = (System.nanoTime() - start) / 1e9;
            final long renewalsAfter = renewals(cluster.statusJson());
            final StringBuilder cpu = new StringBuilder();
            for (int i = 0; i < 3; i++)
            {
                final double share = (cpuTicks(cluster.node(i + 1).pid()) - cpuBefore[i]) / 100.0 / seconds;
                cpu.append(String.format(" node %d%s %.1f%%", i + 1, i + 1 == leader ? " (leader)" : "", share * 100));
            }
            final double perSecond = (renewalsAfter - renewalsBefore) / seconds;
            System.out.printf("FIGURE ratis load: 3 idle nodes, lease 2000 ms: %.2f committed renewals/s (%.2f per " +
                "node); CPU of each node process over %.0f s:%s%n", perSecond, perSecond / 3, seconds, cpu);
            System.out.printf("FIGURE ratis entry: a renewal is %d bytes of command, its answer %d bytes when the " +
                "node's epoch is current; the state of this cluster encodes to %d bytes%n",
                CommandCodec.encode(new ClusterCommand.Renew(1, 1)).length, CommandReply.unchanged(1).encode().length,
                CommandCodec.encode(stateOf(3, 3)).length);
            for (final int nodes : new int[] {100, 1000})
            {
                System.out.printf("FIGURE ratis state: %d nodes, %d ranges, 2 backups each: %d bytes encoded%n", nodes,
                    nodes, CommandCodec.encode(stateOf(nodes, nodes)).length);
            }
            assertTrue(perSecond > 0, "renewals committed");
        }
    }

    /** A state of {@code nodes} members and {@code ranges} even ranges, two backups each, every node renewing. */
    private static CoordState stateOf(final int nodes, final int ranges)
    {
        final List<ClusterMember> members = new ArrayList<>();
        final Map<Integer, Long> renewals = new HashMap<>();
        for (int id = 1; id <= nodes; id++)
        {
            members.add(new ClusterMember(id, "10.0." + id / 256 + "." + id % 256, 7400, 7401));
            renewals.put(id, 1_000_000L);
        }
        final List<SlotRange> slotRanges = new ArrayList<>();
        for (int i = 0; i < ranges; i++)
        {
            final int first = (int)((long)ClusterState.HASH_SLOT_COUNT * i / ranges);
            final int last = (int)((long)ClusterState.HASH_SLOT_COUNT * (i + 1) / ranges) - 1;
            slotRanges.add(new SlotRange(first, last, 1000 + i, i % nodes + 1,
                List.of((i + 1) % nodes + 1, (i + 2) % nodes + 1), List.of(), SlotRange.State.LIVE));
        }
        return new CoordState(new ClusterState(5000, members, slotRanges), renewals, Set.of(), nodes, 2, Map.of());
    }

    private static long renewals(final String statusJson)
    {
        long sum = 0;
        final Matcher m = RENEWALS.matcher(statusJson);
        while (m.find())
        {
            sum += Long.parseLong(m.group(2));
        }
        return sum;
    }

    /** utime + stime of {@code pid} in clock ticks (USER_HZ, 100 on Linux). */
    private static long cpuTicks(final long pid) throws IOException
    {
        final String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        final String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }
}

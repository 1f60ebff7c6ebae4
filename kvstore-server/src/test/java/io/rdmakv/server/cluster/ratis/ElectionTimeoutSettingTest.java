package io.rdmakv.server.cluster.ratis;

import io.rdmakv.server.config.ClusterSettings;
import io.rdmakv.server.config.ConfigException;
import org.apache.ratis.conf.RaftProperties;
import org.apache.ratis.server.RaftServerConfigKeys;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code cluster.electionTimeoutMs}: its default, its bounds, and that every voter's Ratis gets it and twice it. */
class ElectionTimeoutSettingTest
{
    private static final Path DATA = Path.of("/tmp/rdmakv-settings-test");
    private static final String VOTERS = "1@127.0.0.1:7402,2@127.0.0.1:7412,3@127.0.0.1:7422";

    @Test
    void shouldGiveRatisTheElectionTimeoutAndTwiceIt()
    {
        final ClusterSettings dflt = ClusterSettings.parse(Map.of("cluster.voters", VOTERS), DATA);
        assertEquals(ClusterSettings.DEFAULT_ELECTION_TIMEOUT_MS, dflt.electionTimeoutMillis());
        assertTimeouts(200, 400, RaftVoter.properties(dflt));

        final ClusterSettings slow = ClusterSettings.parse(Map.of("cluster.voters", VOTERS,
            "cluster.electionTimeoutMs", "5000", "cluster.leaseMs", "20000"), DATA);
        assertTimeouts(5000, 10_000, RaftVoter.properties(slow));
    }

    @Test
    void shouldRefuseAnElectionTimeoutOutOfBounds()
    {
        for (final String bad : new String[] {"99", "60001", "-1", "soon"})
        {
            final ConfigException ex = assertThrows(ConfigException.class, () -> ClusterSettings.parse(
                Map.of("cluster.voters", VOTERS, "cluster.electionTimeoutMs", bad), DATA), bad);
            assertTrue(ex.getMessage().contains("cluster.electionTimeoutMs"), ex.getMessage());
        }
    }

    private static void assertTimeouts(final long min, final long max, final RaftProperties p)
    {
        assertEquals(min, RaftServerConfigKeys.Rpc.timeoutMin(p).toLong(TimeUnit.MILLISECONDS));
        assertEquals(max, RaftServerConfigKeys.Rpc.timeoutMax(p).toLong(TimeUnit.MILLISECONDS));
    }
}

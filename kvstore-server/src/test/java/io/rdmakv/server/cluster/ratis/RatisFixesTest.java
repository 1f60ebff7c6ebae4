package io.rdmakv.server.cluster.ratis;

import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Method;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Raft fix rdmakv carries ({@link RatisFixes}): the commit index a follower may take from an appendEntries, and
 * that the corrected class is the one loaded (rdmakv's, not ratis-server's: its class directory or jar is
 * RaftVoter's).
 */
class RatisFixesTest
{
    @Test
    void shouldLetAFollowerCommitOnlyWhatTheRequestVouchesFor() throws Exception
    {
        // A heartbeat without a previous entry vouches for nothing: Ratis 3.2.2 answered 0, so a follower committed
        // its own index 0 whatever term it held.
        assertEquals(RaftLog.INVALID_LOG_INDEX, effectiveCommitIndex(10, null, 0));
        assertEquals(RaftLog.INVALID_LOG_INDEX, effectiveCommitIndex(0, null, 0));
        // Entries without a previous one start at index 0: three of them vouch for 0..2 (Ratis 3.2.2: 0..3).
        assertEquals(2, effectiveCommitIndex(10, null, 3));
        assertEquals(1, effectiveCommitIndex(1, null, 3));
        // With a previous entry (checked against the follower's log before), as Ratis computes it.
        assertEquals(8, effectiveCommitIndex(10, TermIndex.valueOf(2, 5), 3));
        assertEquals(6, effectiveCommitIndex(6, TermIndex.valueOf(2, 5), 3));
        assertEquals(5, effectiveCommitIndex(10, TermIndex.valueOf(2, 5), 0));
    }

    @Test
    void shouldLoadRdmakvsCorrectedClassAheadOfRatisServers()
    {
        assertTrue(RatisFixes.followerCommitFixed(), "loaded from " + RatisFixes.serverImplUtilsSource());
        assertEquals(RaftVoter.class.getProtectionDomain().getCodeSource().getLocation().toString(),
            RatisFixes.serverImplUtilsSource());
    }

    private static long effectiveCommitIndex(final long leaderCommit, final TermIndex previous, final int entries)
        throws Exception
    {
        final Method m = Class.forName("org.apache.ratis.server.impl.ServerImplUtils")
            .getDeclaredMethod("effectiveCommitIndex", long.class, TermIndex.class, int.class);
        m.setAccessible(true);
        return (long)m.invoke(null, leaderCommit, previous, entries);
    }
}

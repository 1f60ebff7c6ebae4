package io.rdmakv.server.cluster.ratis;

import org.apache.ratis.server.protocol.TermIndex;
import org.apache.ratis.server.raftlog.RaftLog;

import java.lang.reflect.Method;
import java.security.CodeSource;

/**
 * The Raft fix rdmakv carries for Ratis 3.2.2, and the check that it is the one loaded.
 * <p>
 * Ratis's {@code ServerImplUtils.effectiveCommitIndex} counts a missing "previous" entry of an appendEntries as log
 * index 0, so a heartbeat to a follower held at next index 0 lets the follower commit its own index 0 unchecked. A
 * follower that still holds a brief leader's uncommitted index 0 of another term (leadership churn at a group's
 * first start, on a host that stalls) commits it, and then refuses every later leader's index 0 ("already exists")
 * and everything after it ("previous not found") for good: the group runs on the other voters alone, and losing one
 * of them leaves no majority (a 3-voter cluster then declares no node failed). rdmakv's jar carries Ratis's
 * {@code org.apache.ratis.server.impl.ServerImplUtils} with that one method corrected (a missing previous counts as
 * index -1: entries without one start at index 0); the shaded jar leaves Ratis's own copy out. An application that
 * embeds the node with Ratis's jar ahead of rdmakv's on its class path would load the uncorrected class:
 * {@link RaftVoter#start} says so at ERROR.
 */
public final class RatisFixes
{
    private static final String SERVER_IMPL_UTILS = "org.apache.ratis.server.impl.ServerImplUtils";

    private RatisFixes()
    {
    }

    /**
     * True when the loaded {@code ServerImplUtils} commits nothing on a follower for an appendEntries without a
     * previous entry and without entries (the corrected behaviour), checked by calling it.
     */
    public static boolean followerCommitFixed()
    {
        try
        {
            final Method m = Class.forName(SERVER_IMPL_UTILS)
                .getDeclaredMethod("effectiveCommitIndex", long.class, TermIndex.class, int.class);
            m.setAccessible(true);
            return (long)m.invoke(null, 5L, null, 0) == RaftLog.INVALID_LOG_INDEX &&
                (long)m.invoke(null, 5L, null, 2) == 1L;
        }
        catch (final ReflectiveOperationException | RuntimeException ex)
        {
            return false;
        }
    }

    /** Where the loaded {@code ServerImplUtils} comes from (a jar or a class directory), for the ERROR line. */
    static String serverImplUtilsSource()
    {
        try
        {
            final CodeSource source = Class.forName(SERVER_IMPL_UTILS).getProtectionDomain().getCodeSource();
            return source == null || source.getLocation() == null ? "unknown" : source.getLocation().toString();
        }
        catch (final ClassNotFoundException | SecurityException ex)
        {
            return "not loadable: " + ex;
        }
    }
}

package io.rdmakv.pool;

import com.sun.jna.Memory;
import com.sun.jna.Native;

/**
 * The process's {@code RLIMIT_NOFILE} (soft and hard): every connection is a file descriptor, so a server that must
 * hold thousands of connections (and shed thousands more) raises its soft limit to the hard one at start, as redis
 * does, and says so in one line. Raising the hard limit needs privilege ({@code CAP_SYS_RESOURCE}), so it is only
 * reported.
 *
 * @param soft the soft limit ({@link Long#MAX_VALUE} when unlimited).
 * @param hard the hard limit ({@link Long#MAX_VALUE} when unlimited).
 */
public record OpenFileLimit(long soft, long hard)
{
    /** Read {@code getrlimit(RLIMIT_NOFILE)}. */
    public static OpenFileLimit current()
    {
        final Memory rlimit = new Memory(16);
        if (LibC.INSTANCE.getrlimit(LibC.RLIMIT_NOFILE, rlimit) != 0)
        {
            throw new ArenaException("getrlimit(RLIMIT_NOFILE) failed: errno " + Native.getLastError());
        }
        return new OpenFileLimit(value(rlimit.getLong(0)), value(rlimit.getLong(8)));
    }

    /**
     * Raise the soft limit to the hard one (a no-op when they are equal).
     *
     * @return the limit now in force.
     */
    public static OpenFileLimit raiseSoftToHard()
    {
        final OpenFileLimit now = current();
        if (now.soft >= now.hard)
        {
            return now;
        }
        final Memory rlimit = new Memory(16);
        final long hard = now.hard == Long.MAX_VALUE ? LibC.RLIM_INFINITY : now.hard;
        rlimit.setLong(0, hard);
        rlimit.setLong(8, hard);
        if (LibC.INSTANCE.setrlimit(LibC.RLIMIT_NOFILE, rlimit) != 0)
        {
            throw new ArenaException("setrlimit(RLIMIT_NOFILE, " + now.hard + ") failed: errno " +
                Native.getLastError());
        }
        return current();
    }

    /**
     * One line for the log: the limit, where it came from, and whether it covers {@code needed} descriptors (with
     * the fix when it does not).
     *
     * @param before the limit before {@link #raiseSoftToHard()}.
     * @param needed descriptors the configuration may use.
     * @param why    how {@code needed} was reckoned (names the settings).
     */
    public String describe(final OpenFileLimit before, final long needed, final String why)
    {
        final String raised = before.soft == soft ? "" : " (raised from " + text(before.soft) + ")";
        final String line = "open files: limit " + text(soft) + raised + ", hard " + text(hard) + "; this " +
            "configuration needs about " + needed + " (" + why + ")";
        if (soft >= needed)
        {
            return line;
        }
        return line + ": TOO LOW; raise the hard limit to at least " + needed + " (as root `ulimit -Hn " + needed +
            "`, systemd `LimitNOFILE=" + needed + "`, `docker run --ulimit nofile=" + needed + ":" + needed +
            "`) or lower those settings";
    }

    /** True when the soft limit covers {@code needed}. */
    public boolean covers(final long needed)
    {
        return soft >= needed;
    }

    private static long value(final long raw)
    {
        return raw == LibC.RLIM_INFINITY ? Long.MAX_VALUE : raw;
    }

    private static String text(final long limit)
    {
        return limit == Long.MAX_VALUE ? "unlimited" : Long.toString(limit);
    }
}

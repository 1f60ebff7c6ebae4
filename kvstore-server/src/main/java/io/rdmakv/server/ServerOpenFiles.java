package io.rdmakv.server;

import io.rdmakv.pool.ArenaException;
import io.rdmakv.pool.OpenFileLimit;
import io.rdmakv.server.config.ServerConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * At start, the node raises its open-file limit from soft to hard (as redis does: every connection is a descriptor,
 * and an attacker's idle connections must not run the node out of them before they are shed) and logs one line:
 * the limit, and whether it covers what the connection settings may use, with the fix when it does not.
 */
final class ServerOpenFiles
{
    /** Descriptors beyond connections: RocksDB's files, the JVM's jars, epoll and event fds, closing connections. */
    static final int BASE_DESCRIPTORS = 256;
    private static final Logger LOG = LoggerFactory.getLogger(ServerOpenFiles.class);

    private ServerOpenFiles()
    {
    }

    /** Descriptors a node with these settings may hold: both planes' authenticated and unauthenticated connections. */
    static long needed(final ServerConfig config)
    {
        return 2L * config.maxConnections() + 2L * config.admission().maxUnauthenticated() + BASE_DESCRIPTORS;
    }

    /** Raise the soft limit to the hard one and log the outcome (a failure to read or raise is logged, not fatal). */
    static void raiseAndReport(final ServerConfig config)
    {
        final long needed = needed(config);
        final String why = "2 x limits.maxConnections + 2 x limits.maxUnauthenticated + " + BASE_DESCRIPTORS;
        try
        {
            final OpenFileLimit before = OpenFileLimit.current();
            final OpenFileLimit now = OpenFileLimit.raiseSoftToHard();
            final String line = now.describe(before, needed, why);
            if (now.covers(needed))
            {
                LOG.info(line);
            }
            else
            {
                LOG.warn(line);
            }
        }
        catch (final ArenaException | LinkageError ex)
        {
            LOG.warn("open files: cannot read or raise RLIMIT_NOFILE ({}); this configuration needs about {} ({})",
                ex.getMessage(), needed, why);
        }
    }
}

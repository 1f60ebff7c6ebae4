package io.rdmakv.cli;

import org.slf4j.LoggerFactory;

/**
 * A child JVM's main for {@link LoggingTest}: the launcher's log set-up, then one line at each level that matters and a
 * storm of one Ratis warning when the environment has RDMAKV_PROBE_STORM.
 */
public final class LogProbeMain
{
    private LogProbeMain()
    {
    }

    public static void main(final String[] args)
    {
        LogSetup.apply(args);
        LoggerFactory.getLogger("io.rdmakv.probe").info("probe info {}", 42);
        LoggerFactory.getLogger("io.rdmakv.probe").debug("probe debug");
        LoggerFactory.getLogger("io.rdmakv.probe").warn("probe warn");
        LoggerFactory.getLogger("io.netty.probe").info("netty info");
        for (int i = 0; System.getenv("RDMAKV_PROBE_STORM") != null && i < 50; i++)
        {
            // A Ratis warning storm: the launcher's configuration writes the first 5 of a kind (RepeatedLinesFilter).
            LoggerFactory.getLogger("org.apache.ratis.server.impl.LeaderStateImpl")
                .warn("probe storm: heartbeat to {} failed", "peer-" + (i % 2));
        }
    }
}

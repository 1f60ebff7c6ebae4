package io.rdmakv.cli;

import org.slf4j.LoggerFactory;

/** A child JVM's main for {@link LoggingTest}: the launcher's log set-up, then one line at each level that matters. */
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
    }
}

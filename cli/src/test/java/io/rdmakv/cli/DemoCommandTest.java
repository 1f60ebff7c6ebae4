package io.rdmakv.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo end to end, shortened: a node in this process, a load, a mixed workload, and the report. */
class DemoCommandTest
{
    @Test
    @Timeout(90)
    void shouldRunWorkloadAndReportEverything()
    {
        final CliCommandsTest.Run demo = CliCommandsTest.run(null, "demo", "--transport", "tcp", "--keys", "300",
            "--threads", "2", "--duration-ms", "700", "--pool-size", "8MiB");
        assertEquals(ExitCodes.OK, demo.code(), demo.out() + demo.err());
        final String out = demo.out();
        assertTrue(out.contains("transport        tcp"), out);
        assertTrue(out.contains("get mode         one-sided"), out);
        assertTrue(out.contains("load             300 keys"), out);
        assertTrue(out.matches("(?s).*workload +\\d+ ops in .* ops/s .*, 0 errors.*"), out);
        assertTrue(out.contains("p99.9"), out);
        assertTrue(out.matches("(?s).*\nGET +[1-9]\\d* .*"), "GETs were timed: " + out);
        assertTrue(out.matches("(?s).*one-sided hits [1-9]\\d*,.*"), "GETs were served one-sided: " + out);
        assertTrue(out.contains("(none on the data path)"), out);
        assertTrue(out.contains("node 1 "), out);
        assertTrue(out.contains("  auto           would select shm (same host as the node"), out);
        assertTrue(!out.contains("beside it"), "an explicit transport runs alone: " + out);
    }

    @Test
    @Timeout(90)
    void shouldPickShmByDefaultSayWhyAndRunTcpBesideIt()
    {
        final CliCommandsTest.Run demo = CliCommandsTest.run(null, "demo", "--keys", "300",
            "--threads", "2", "--duration-ms", "700", "--pool-size", "8MiB");
        assertEquals(ExitCodes.OK, demo.code(), demo.out() + demo.err());
        final String out = demo.out();
        assertTrue(out.contains("transport        shm"), out);
        assertTrue(out.contains("same host as the node (boot id and network namespace match)"), out);
        assertTrue(out.matches("(?s).*one-sided hits [1-9]\\d*,.*"), "GETs were served one-sided: " + out);
        assertTrue(out.contains("(none on the data path)"), out);
        assertTrue(out.contains("beside it: the same workload over tcp"), out);
        assertTrue(out.matches("(?s).*\nshm +[1-9]\\d* .*\ntcp +[1-9]\\d* .*"), "both rows, both with ops: " + out);
    }
}

package io.rdmakv.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdmakv mset} as a process against a server process: the pairs and deletes of one hash tag applied together,
 * keys of two slots refused with exit 3 and nothing written, the node's counters naming both.
 */
@Timeout(300)
class MsetProcessTest
{
    private static final String MAIN = RdmakvMain.class.getName();

    @TempDir
    Path tmp;

    @Test
    void shouldWriteABatchOfOneHashTagAndRefuseTwoSlots() throws Exception
    {
        final int controlPort = freePort();
        final String[] ready = new String[1];
        try (ChildJvm server = ChildJvm.startUntil(tmp, "READY", ready, MAIN, "server", "--host", "127.0.0.1",
            "--advertised-host", "127.0.0.1", "--port", Integer.toString(controlPort), "--data-port", "0",
            "--data-dir", tmp.resolve("data").toString(), "--pool-size", "16MiB", "--transport", "tcp"))
        {
            final String seed = "127.0.0.1:" + controlPort;
            assertEquals(ExitCodes.OK, cli("put", "-s", seed, "{cart7}:stale", "x").code());
            final ChildJvm.Result mset = cli("mset", "-s", seed, "{cart7}:apple", "2", "{cart7}:pear", "5",
                "--delete", "{cart7}:stale");
            assertEquals(ExitCodes.OK, mset.code(), mset.err());
            assertEquals("2", cli("get", "-s", seed, "{cart7}:apple").out().strip());
            assertEquals("5", cli("get", "-s", seed, "{cart7}:pear").out().strip());
            assertEquals(ExitCodes.NOT_FOUND, cli("get", "-s", seed, "{cart7}:stale").code());

            final ChildJvm.Result cross = cli("mset", "-s", seed, "{cart7}:apple", "9", "{cart8}:plum", "1");
            assertEquals(ExitCodes.FAILED, cross.code(), cross.out());
            assertTrue(cross.err().contains("CROSSSLOT") && cross.err().contains("hash tag"), cross.err());
            assertEquals("2", cli("get", "-s", seed, "{cart7}:apple").out().strip(), "nothing written");
            assertEquals(ExitCodes.NOT_FOUND, cli("get", "-s", seed, "{cart8}:plum").code());

            final ChildJvm.Result odd = cli("mset", "-s", seed, "{cart7}:apple");
            assertEquals(ExitCodes.USAGE, odd.code(), odd.err());

            final ChildJvm.Result stats = cli("stats", "-s", seed);
            assertEquals(ExitCodes.OK, stats.code(), stats.err());
            assertTrue(stats.out().contains("batchWrites"), stats.out());
        }
    }

    private ChildJvm.Result cli(final String... args) throws Exception
    {
        return ChildJvm.run(tmp, ChildJvm.FLAGS, MAIN, args);
    }

    private static int freePort() throws Exception
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }
}

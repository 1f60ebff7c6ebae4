package io.rdmakv.it.e2e;

import io.rdmakv.cli.Io;
import io.rdmakv.cli.RdmakvMain;
import io.rdmakv.it.support.ServerProcess;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The CLI's versions, conditional writes, counters and expiry against a node process, over tcp and over shm (the
 * node serves shm beside tcp by default): the exact command names and exit codes scripts rely on, and an expiry and
 * a version that survive the node's restart.
 */
@Timeout(180)
class RecordCommandsTest
{
    @TempDir
    Path tmp;

    /** What one command printed and returned. */
    private record Run(int code, String out, String err)
    {
        List<String> lines()
        {
            return List.of(out.split("\n"));
        }
    }

    private static Run rdmakv(final ServerProcess node, final String transport, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final List<String> all = new ArrayList<>(List.of(args[0], "-s", node.seed(), "--transport", transport));
        all.addAll(List.of(args).subList(1, args.length));
        final int code = RdmakvMain.commandLine(new Io(new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true), new PrintStream(err, true))).execute(all.toArray(String[]::new));
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static long ttl(final ServerProcess node, final String transport, final String key)
    {
        final Run run = rdmakv(node, transport, "ttl", key);
        assertEquals(0, run.code(), run.err());
        return Long.parseLong(run.out().strip());
    }

    @Test
    void shouldServeTheRecordCommandsOverTcpAndShmAndKeepExpiryAndVersionAcrossARestart() throws Exception
    {
        try (ServerProcess node = ServerProcess.builder(tmp.resolve("node")).name("records").start())
        {
            for (final String t : new String[] {"tcp", "shm"})
            {
                final String k = "k-" + t;
                assertEquals(0, rdmakv(node, t, "put", k, "one").code());
                final Run refused = rdmakv(node, t, "put", "--if-absent", k, "two");
                assertEquals(3, refused.code(), "a refused condition exits 3");
                assertEquals(1, refused.err().strip().lines().count(), "with a one-line reason: " + refused.err());
                assertTrue(refused.err().contains("condition failed"), refused.err());

                final Run read = rdmakv(node, t, "get", "--with-version", k);
                assertEquals(0, read.code(), read.err());
                assertEquals("one", read.lines().get(0));
                final long version = Long.parseLong(read.lines().get(1));
                assertTrue(version > 0);

                assertEquals(3, rdmakv(node, t, "put", "--if-version", Long.toString(version + 1), k, "x").code());
                assertEquals(0, rdmakv(node, t, "put", "--if-version", Long.toString(version), k, "two").code());
                assertEquals(3, rdmakv(node, t, "del", "--if-version", Long.toString(version), k).code(),
                    "the version moved on");
                final long current = Long.parseLong(rdmakv(node, t, "get", "--with-version", k).lines().get(1));
                assertEquals(0, rdmakv(node, t, "del", "--if-version", Long.toString(current), k).code());
                assertEquals(1, rdmakv(node, t, "get", k).code(), "deleted");

                final String n = "n-" + t;
                assertEquals("1", rdmakv(node, t, "incr", n).out().strip());
                assertEquals("6", rdmakv(node, t, "incr", n, "5").out().strip());
                assertEquals("-4", rdmakv(node, t, "incr", n, "--", "-10").out().strip());
                assertEquals(0, rdmakv(node, t, "put", "text-" + t, "abc").code());
                final Run notInteger = rdmakv(node, t, "incr", "text-" + t);
                assertEquals(3, notInteger.code(), notInteger.err());

                assertEquals(-2, ttl(node, t, "absent-" + t));
                assertEquals(-1, ttl(node, t, n));
                assertEquals(0, rdmakv(node, t, "expire", n, "1h").code());
                final long left = ttl(node, t, n);
                assertTrue(left > 3500 && left <= 3600, "about an hour: " + left);
                assertEquals(1, rdmakv(node, t, "expire", "absent-" + t, "10s").code());
                assertEquals(0, rdmakv(node, t, "put", "--ttl", "2h", "t-" + t, "cached").code());
                assertTrue(ttl(node, t, "t-" + t) > 7000);
                assertEquals("cached", rdmakv(node, t, "get", "t-" + t).out().strip());
            }
            final long before = Long.parseLong(rdmakv(node, "tcp", "get", "--with-version", "t-shm").lines().get(1));
            node.stop(Duration.ofSeconds(30));
            try (ServerProcess again = node.restart())
            {
                assertTrue(ttl(again, "tcp", "t-shm") > 7000, "the expiry survives the restart");
                assertEquals(before, Long.parseLong(rdmakv(again, "shm", "get", "--with-version", "t-shm").lines()
                    .get(1)), "and the version");
                assertEquals("-3", rdmakv(again, "shm", "incr", "n-shm").out().strip());
            }
        }
    }
}

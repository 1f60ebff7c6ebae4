package io.rdmakv.cli;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static io.rdmakv.cli.CliCommandsTest.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** scan, range and prefix through the picocli entry point against a real node of its own in this process. */
@Timeout(60)
class ScanCommandsTest
{
    @TempDir
    static Path dir;

    private static KvServer server;
    private static String address;

    @BeforeAll
    static void startNode()
    {
        server = KvServer.start(ServerConfig.from(new Properties(), CliCommandsTest.testSettings(dir)));
        address = "127.0.0.1:" + server.controlAddress().getPort();
        for (int i = 0; i < 30; i++)
        {
            assertEquals(ExitCodes.OK, run(null, "put", "-s", address, "key:" + i, "v" + i).code());
        }
        for (int i = 0; i < 5; i++)
        {
            assertEquals(ExitCodes.OK, run(null, "put", "-s", address, "{u1}:item:" + i, "item " + i).code());
        }
    }

    @AfterAll
    static void stopNode()
    {
        server.close();
    }

    @Test
    void shouldPrintEveryKeyOncePerLineInSmallRequests()
    {
        final CliCommandsTest.Run scan = run(null, "scan", "-s", address, "--count", "3");
        assertEquals(ExitCodes.OK, scan.code(), scan.err());
        final List<String> lines = scan.out().lines().toList();
        assertEquals(35, lines.size(), scan.out());
        final Set<String> expected = new TreeSet<>();
        IntStream.range(0, 30).forEach(i -> expected.add("key:" + i));
        IntStream.range(0, 5).forEach(i -> expected.add("{u1}:item:" + i));
        assertEquals(expected, new TreeSet<>(lines));
    }

    @Test
    void shouldPrintMatchingKeysAsOneJsonArray()
    {
        final CliCommandsTest.Run scan = run(null, "scan", "-s", address, "--match", "key:1?", "--json");
        assertEquals(ExitCodes.OK, scan.code(), scan.err());
        final Set<String> keys = new TreeSet<>();
        Json.read(scan.out()).forEach(n -> keys.add(n.asText()));
        assertEquals(IntStream.range(10, 20).mapToObj(i -> "key:" + i).collect(Collectors.toCollection(TreeSet::new)),
            keys);
        assertEquals(1, scan.out().strip().lines().count());
    }

    @Test
    void shouldPrintARangeAndAPrefixInKeyOrder()
    {
        final CliCommandsTest.Run range = run(null, "range", "-s", address, "{u1}:item:1", "{u1}:item:3");
        assertEquals(ExitCodes.OK, range.code(), range.err());
        assertEquals("{u1}:item:1\titem 1\n{u1}:item:2\titem 2\n", range.out());

        final CliCommandsTest.Run prefix = run(null, "prefix", "-s", address, "{u1}:item:", "--limit", "2", "--json");
        assertEquals(ExitCodes.OK, prefix.code(), prefix.err());
        assertEquals("[{\"key\":\"{u1}:item:0\",\"value\":\"item 0\"},{\"key\":\"{u1}:item:1\",\"value\":\"item 1\"}]",
            prefix.out().strip());
    }

    @Test
    void shouldRefuseKeysOfSeveralHashSlotsAndABadCountAsUsageErrors()
    {
        final CliCommandsTest.Run cross = run(null, "range", "-s", address, "{a}x", "{b}y");
        assertEquals(ExitCodes.USAGE, cross.code());
        assertTrue(cross.err().contains("CROSSSLOT"), cross.err());
        final CliCommandsTest.Run noTag = run(null, "prefix", "-s", address, "key:");
        assertEquals(ExitCodes.USAGE, noTag.code());
        assertTrue(noTag.err().contains("hash tag"), noTag.err());
        final CliCommandsTest.Run count = run(null, "scan", "-s", address, "--count", "0");
        assertEquals(ExitCodes.USAGE, count.code());
        for (final String command : Arrays.asList("scan", "range", "prefix"))
        {
            final CliCommandsTest.Run help = run(null, command, "--help");
            assertEquals(ExitCodes.OK, help.code(), command);
            assertTrue(help.out().startsWith("Usage: rdmakv " + command), help.out());
        }
    }
}

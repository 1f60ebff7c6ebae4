package io.rdmakv.cli;

import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** get/put/del/stats through the picocli entry point against a real node in this process: output and exit codes. */
@Timeout(60)
public class CliCommandsTest
{
    @TempDir
    static Path dir;

    private static KvServer server;
    private static String address;

    @BeforeAll
    static void startNode()
    {
        server = KvServer.start(ServerConfig.from(new Properties(), testSettings(dir)));
        address = "127.0.0.1:" + server.controlAddress().getPort();
    }

    @AfterAll
    static void stopNode()
    {
        server.close();
    }

    public static Map<String, String> testSettings(final Path dataDir)
    {
        final Map<String, String> m = new HashMap<>();
        m.put("data.dir", dataDir.toString());
        m.put("transport", "tcp");
        m.put("host", "127.0.0.1");
        m.put("control.port", "0");
        m.put("data.port", "0");
        m.put("pool.size", "8MiB");
        m.put("pool.pin", "OFF");
        m.put("limits.maxValueBytes", "65536");
        return m;
    }

    @Test
    void shouldPutThenGetValueAloneOnStdout()
    {
        final Run put = run(null, "put", "--server", address, "greeting", "hello world");
        assertEquals(ExitCodes.OK, put.code, put.err);
        assertEquals("", put.out);

        final Run get = run(null, "get", "--server", address, "greeting");
        assertEquals(ExitCodes.OK, get.code, get.err);
        assertEquals("hello world\n", get.out);
        assertEquals("", get.err, "nothing but the value: no log lines");

        final Run raw = run(null, "get", "-s", address, "-n", "greeting");
        assertEquals("hello world", raw.out);
    }

    @Test
    void shouldExitOneWithMessageForMissingKey()
    {
        final Run get = run(null, "get", "--server", address, "no-such-key");
        assertEquals(ExitCodes.NOT_FOUND, get.code);
        assertEquals("", get.out);
        assertTrue(get.err.contains("key not found: no-such-key"), get.err);
    }

    @Test
    void shouldReadValueFromStdinAsRawBytes()
    {
        final byte[] binary = {0, 1, 2, (byte)0xFF, '\n', 'x'};
        final Run put = run(binary, "put", "--server", address, "binary", "-");
        assertEquals(ExitCodes.OK, put.code, put.err);
        final Run get = run(null, "get", "--server", address, "--no-newline", "binary");
        assertArrayEquals(binary, get.outBytes);
    }

    @Test
    void shouldDeleteKey()
    {
        assertEquals(ExitCodes.OK, run(null, "put", "-s", address, "doomed", "x").code);
        final Run del = run(null, "del", "-s", address, "doomed");
        assertEquals(ExitCodes.OK, del.code, del.err);
        assertEquals("", del.out);
        assertEquals(ExitCodes.NOT_FOUND, run(null, "get", "-s", address, "doomed").code);
    }

    @Test
    void shouldExitOneWhenDeletingAKeyThatDoesNotExist()
    {
        final Run never = run(null, "del", "-s", address, "never-written");
        assertEquals(ExitCodes.NOT_FOUND, never.code, never.err);
        assertEquals("", never.out);
        assertTrue(never.err.contains("never-written"), never.err);
        assertEquals(ExitCodes.OK, run(null, "put", "-s", address, "twice", "x").code);
        assertEquals(ExitCodes.OK, run(null, "del", "-s", address, "twice").code);
        assertEquals(ExitCodes.NOT_FOUND, run(null, "del", "-s", address, "twice").code);
    }

    @Test
    void shouldPrintNodeAndClientCounters()
    {
        assertEquals(ExitCodes.OK, run(null, "put", "-s", address, "counted", "1").code);
        final Run stats = run(null, "stats", "-s", address);
        assertEquals(ExitCodes.OK, stats.code, stats.err);
        assertTrue(stats.out.contains("node.1.puts="), stats.out);
        assertTrue(stats.out.contains("client.rpc.requests="), stats.out);
    }

    @Test
    void shouldFailWithExitThreeWhenNoServerListens() throws Exception
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final Run get = run(null, "get", "-s", "127.0.0.1:" + port, "--timeout-ms", "2000", "k");
        assertEquals(ExitCodes.FAILED, get.code);
        assertTrue(get.err.startsWith("rdmakv: no seed node answered"), get.err);
        assertTrue(get.err.contains("connection refused"), get.err);
        assertEquals(1, get.err.strip().lines().count(), "one line, no stack trace: " + get.err);
    }

    @Test
    void shouldRejectBadArgumentsAsUsageErrors()
    {
        final Run missingKey = run(null, "get", "-s", address);
        assertEquals(ExitCodes.USAGE, missingKey.code);
        assertTrue(missingKey.err.contains("a key is required: KEY, --key-hex HEX or --key-base64 B64"),
            missingKey.err);

        final Run badAddress = run(null, "get", "-s", "nohost", "k");
        assertEquals(ExitCodes.USAGE, badAddress.code);
        assertTrue(badAddress.err.contains("expected HOST:PORT"), badAddress.err);

        final Run hugeKey = run(null, "put", "-s", address, "k".repeat(2000), "v");
        assertEquals(ExitCodes.USAGE, hugeKey.code);
        assertTrue(hugeKey.err.contains("exceeds the limit of 1024 bytes"), hugeKey.err);

        final Run unknown = run(null, "frobnicate");
        assertEquals(ExitCodes.USAGE, unknown.code);
    }

    @Test
    void shouldPrintHelpForEveryCommand()
    {
        for (final String command : new String[] {"server", "get", "put", "del", "stats", "demo"})
        {
            final Run help = run(null, command, "--help");
            assertEquals(ExitCodes.OK, help.code, command);
            assertTrue(help.out.startsWith("Usage: rdmakv " + command), help.out);
        }
        final Run top = run(null, "--help");
        assertTrue(top.out.contains("demo"), top.out);
    }

    /** Run one command line in-process with captured streams. */
    static Run run(final byte[] stdin, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final Io io = new Io(new ByteArrayInputStream(stdin == null ? new byte[0] : stdin),
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        final int code = RdmakvMain.run(io, args);
        return new Run(code, out.toByteArray(), out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8));
    }

    record Run(int code, byte[] outBytes, String out, String err)
    {
    }
}

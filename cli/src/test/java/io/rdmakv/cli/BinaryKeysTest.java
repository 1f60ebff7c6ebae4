package io.rdmakv.cli;

import io.rdmakv.cli.CliCommandsTest.Run;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import static io.rdmakv.cli.CliCommandsTest.run;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Keys and values are bytes: bytes that are not UTF-8 keep their identity through a real {@code rdmakv} process
 * (argv as the shell gives it), and the hex/base64/file forms take and print any bytes.
 */
@Timeout(180)
class BinaryKeysTest
{
    @TempDir
    static Path dir;

    private static KvServer server;
    private static String address;

    @BeforeAll
    static void startNode()
    {
        server = KvServer.start(ServerConfig.from(new Properties(), CliCommandsTest.testSettings(dir.resolve("data"))));
        address = "127.0.0.1:" + server.controlAddress().getPort();
    }

    @AfterAll
    static void stopNode()
    {
        server.close();
    }

    @Test
    void shouldKeepTwoDifferentNonUtf8KeysApartThroughTheProcess() throws Exception
    {
        // The measurement: put $'\xff' A; put $'\xfe' B; get $'\xff' printed B.
        assertEquals("", cli("C.UTF-8", "put -s " + address + " $'\\xff' A").out());
        assertEquals("", cli("C.UTF-8", "put -s " + address + " $'\\xfe' B").out());
        assertEquals("A\n", cli("C.UTF-8", "get -s " + address + " $'\\xff'").out());
        // An ASCII locale turns both into '?' instead: still the bytes given.
        assertEquals("B\n", cli("C", "get -s " + address + " $'\\xfe'").out());
        assertEquals("41\n", run(null, "get", "-s", address, "--key-hex", "ff", "--hex").out());
        assertEquals("42\n", run(null, "get", "-s", address, "--key-hex", "FE", "--hex").out());
    }

    @Test
    void shouldStoreAValueOfRawBytesGivenAsAnArgument() throws Exception
    {
        assertEquals("", cli("C.UTF-8", "put -s " + address + " bin/value $'\\x80A\\xc3'").out());
        assertEquals("8041c3\n", run(null, "get", "-s", address, "--hex", "bin/value").out());
    }

    @Test
    void shouldTakeAndPrintAnyBytesAsHexBase64AndFile() throws Exception
    {
        final byte[] value = {0, 1, (byte)0xff, (byte)0xfe, '\n', 'x'};
        assertEquals(ExitCodes.OK, run(null, "put", "-s", address, "--key-hex", "00ff10", "--value-hex", "0001fffe0a78")
            .code());
        assertEquals("0001fffe0a78\n", run(null, "get", "-s", address, "--key-base64", "AP8Q", "--hex").out());
        assertEquals("AAH//gp4\n", run(null, "get", "-s", address, "--key-hex", "0x00ff10", "--base64").out());
        assertArrayEquals(value, run(null, "get", "-s", address, "--key-hex", "00ff10", "--raw").outBytes());

        final Path file = dir.resolve("value.bin");
        Files.write(file, value);
        assertEquals(ExitCodes.OK, run(null, "put", "-s", address, "--key-base64", "AQI=", "--value-file",
            file.toString()).code());
        assertArrayEquals(value, run(null, "get", "-s", address, "--key-hex", "0102", "-n").outBytes());
        assertEquals(ExitCodes.OK, run(null, "del", "-s", address, "--key-hex", "0102").code());
        final Run gone = run(null, "get", "-s", address, "--key-hex", "0102");
        assertEquals(ExitCodes.NOT_FOUND, gone.code());
        assertTrue(gone.err().contains("0x0102"), gone.err());
    }

    @Test
    void shouldRefuseAKeyWhoseBytesWereLostAndPointToTheHexOption()
    {
        final Run put = run(null, "put", "-s", address, "\uFFFD", "A");
        assertEquals(ExitCodes.USAGE, put.code());
        assertTrue(put.err().contains("--key-hex") && put.err().contains("--key-base64"), put.err());
        final Run both = run(null, "get", "-s", address, "--key-hex", "ff", "k");
        assertEquals(ExitCodes.USAGE, both.code());
        final Run badHex = run(null, "put", "-s", address, "--key-hex", "f", "v");
        assertEquals(ExitCodes.USAGE, badHex.code());
        assertTrue(badHex.err().contains("hexadecimal"), badHex.err());
        final Run twoFormats = run(null, "get", "-s", address, "--hex", "--base64", "k");
        assertEquals(ExitCodes.USAGE, twoFormats.code());
    }

    /** One {@code rdmakv} process started by bash (so argv holds the bytes $'...' makes) under {@code locale}. */
    private static Run cli(final String locale, final String arguments) throws Exception
    {
        final String java = ProcessHandle.current().info().command().orElse(System.getProperty("java.home") +
            "/bin/java");
        final String script = "exec '" + java + "' -Xmx64m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC " +
            "--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED " +
            "--add-opens java.base/sun.nio.ch=ALL-UNNAMED -Dio.netty.tryReflectionSetAccessible=true " +
            "--enable-native-access=ALL-UNNAMED " +
            "-cp '" + System.getProperty("java.class.path") + "' " + RdmakvMain.class.getName() + " " + arguments;
        final List<String> command = new ArrayList<>(List.of("bash", "-c", script));
        final Path out = Files.createTempFile(dir, "cli", ".out");
        final Path err = Files.createTempFile(dir, "cli", ".err");
        final ProcessBuilder pb = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("LC_ALL", locale);
        final Process p = pb.start();
        if (!p.waitFor(60, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new AssertionError("rdmakv did not finish within 60 s: " + arguments);
        }
        final byte[] bytes = Files.readAllBytes(out);
        final String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertEquals(ExitCodes.OK, p.exitValue(), arguments + ": " + stderr);
        return new Run(p.exitValue(), bytes, new String(bytes, StandardCharsets.UTF_8), stderr);
    }
}

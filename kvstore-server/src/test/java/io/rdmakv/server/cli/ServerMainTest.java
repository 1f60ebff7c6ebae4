package io.rdmakv.server.cli;

import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class ServerMainTest
{
    private static final Pattern READY = Pattern.compile(
        "READY node=(\\d+) control=127\\.0\\.0\\.1:(\\d+) data=127\\.0\\.0\\.1:(\\d+) transport=tcp serves=tcp,shm " +
            "startupMs=(-1|\\d+) poolKeys=0 poolComplete=true");

    @TempDir
    Path dir;

    private static List<String> javaCommand(final String... args)
    {
        final List<String> cmd = new ArrayList<>();
        cmd.add(ProcessHandle.current().info().command().orElse("java"));
        // Agrona 2.x needs jdk.internal.misc.Unsafe: a real launch script passes the same flag.
        cmd.add("--add-opens");
        cmd.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        cmd.add("-XX:TieredStopAtLevel=1");
        cmd.add("-XX:+UseSerialGC");
        cmd.add("-cp");
        cmd.add(System.getProperty("java.class.path"));
        cmd.add(ServerMain.class.getName());
        cmd.addAll(List.of(args));
        return cmd;
    }

    @Test
    @Timeout(120)
    void shouldPrintOneReadyLineAndShutDownGracefullyOnSigterm() throws Exception
    {
        final Path log = dir.resolve("stderr.log");
        final Process child = new ProcessBuilder(javaCommand("server", "--data-port", "0", "--control-port", "0",
            "--host", "127.0.0.1", "--data-dir", dir.resolve("data").toString(), "--transport", "tcp",
            "--pool-size", "4MiB", "--pin", "OFF", "-S", "limits.maxValueBytes=65536"))
            .redirectError(log.toFile())
            .start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8)))
        {
            final String line = out.readLine();
            assertNotNull(line, "child exited before READY: " + Files.readString(log));
            final Matcher m = READY.matcher(line);
            assertTrue(m.matches(), line);
            final int dataPort = Integer.parseInt(m.group(3));
            assertNotEquals(0, dataPort);

            try (io.rdmakv.server.RawClientAccess client = new io.rdmakv.server.RawClientAccess(
                new java.net.InetSocketAddress("127.0.0.1", Integer.parseInt(m.group(2))),
                new java.net.InetSocketAddress("127.0.0.1", dataPort)))
            {
                assertEquals("OK", client.put("durable".getBytes(), "yes".getBytes()));
            }

            // SIGTERM, as an init system sends it (Process.destroy would also close our end of stdout).
            assertEquals(0, new ProcessBuilder("kill", "-TERM", Long.toString(child.pid())).start().waitFor());
            assertTrue(child.waitFor(90, TimeUnit.SECONDS), "graceful shutdown within 90 s");
            assertEquals(null, out.readLine(), "exactly one line on stdout");
        }
        final String stderr = Files.readString(log);
        assertTrue(stderr.contains("node 1 stopping") && stderr.contains("node 1 stopped"), stderr);
        assertTrue(stderr.contains("RocksDB at") && stderr.contains("closed"), stderr);
        try (RocksStore store = RocksStore.open(dir.resolve("data"), Durability.DEFAULT))
        {
            assertArrayEquals("yes".getBytes(), store.get("durable".getBytes()));
        }
    }

    @Test
    @Timeout(120)
    void shouldFailToStartWithTheMemlockMessageWhenPinningIsRequiredAndImpossible() throws Exception
    {
        final List<String> cmd = new ArrayList<>(List.of("prlimit", "--memlock=65536:65536"));
        if (MemlockLimit.current().ipcLockCapability())
        {
            // With CAP_IPC_LOCK (root) the kernel ignores the limit: drop the capability for the child.
            assumeTrue(new java.io.File("/usr/bin/setpriv").canExecute(), "CAP_IPC_LOCK held and no setpriv");
            cmd.addAll(List.of("/usr/bin/setpriv", "--bounding-set=-ipc_lock", "--inh-caps=-ipc_lock"));
        }
        cmd.addAll(javaCommand("--data-port", "0", "--control-port", "0", "--host", "127.0.0.1",
            "--data-dir", dir.resolve("data").toString(), "--transport", "tcp", "--pool-size", "64MiB",
            "--pin", "REQUIRED"));
        final Process child = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        final String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(90, TimeUnit.SECONDS));
        assertEquals(1, child.exitValue(), output);
        assertTrue(output.contains("rdmakv server: cannot start:"), output);
        assertTrue(output.contains("ulimit -l"), output);
        assertTrue(output.contains("64.0 MiB") && output.contains("64.0 KiB"), output);
        assertTrue(!output.contains("READY"), output);
    }

    @Test
    @Timeout(60)
    void shouldExitWithTwoAndAClearMessageOnABadConfiguration()
    {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int code = new CommandLine(new ServerCommand(new PrintStream(out), new PrintStream(err)))
            .execute("--pool-size", "lots", "--data-dir", dir.toString());
        assertEquals(2, code);
        assertTrue(err.toString().contains("pool.size must be a size"), err.toString());
        assertEquals("", out.toString());

        err.reset();
        final int unknown = new CommandLine(new ServerCommand(new PrintStream(out), new PrintStream(err)))
            .execute("-S", "pool.sise=1");
        assertEquals(2, unknown);
        assertTrue(err.toString().contains("unknown setting 'pool.sise'"), err.toString());
    }
}

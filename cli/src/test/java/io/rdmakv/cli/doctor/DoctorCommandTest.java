package io.rdmakv.cli.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rdmakv.cli.Io;
import io.rdmakv.cli.RdmakvMain;
import io.rdmakv.pool.MemlockLimit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code rdmakv doctor} through the picocli entry point: sections, JSON, and the exit codes 0 and 2. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DoctorCommandTest
{
    @TempDir
    Path tmp;

    private record Run(int code, String out, String err)
    {
    }

    private static Run run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = RdmakvMain.run(new Io(new ByteArrayInputStream(new byte[0]),
            new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8)),
            args);
        return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A SoftRoCE device in the kernel's formats, and a /dev/infiniband with uverbs0. */
    private String[] fixture() throws IOException
    {
        final Path port = tmp.resolve("sys/rxe0/ports/1");
        write(tmp.resolve("sys/rxe0/node_type"), "1: CA");
        write(port.resolve("state"), "4: ACTIVE");
        write(port.resolve("phys_state"), "5: LinkUp");
        write(port.resolve("rate"), "10 Gb/sec (1X QDR)");
        write(port.resolve("link_layer"), "Ethernet");
        write(port.resolve("lid"), "0x0");
        write(port.resolve("gids/1"), "0000:0000:0000:0000:0000:ffff:0a00:0002");
        write(port.resolve("gid_attrs/types/1"), "RoCE v2");
        write(port.resolve("gid_attrs/ndevs/1"), "eth0");
        write(port.resolve("hw_counters/rcvd_rnr_err"), "0");
        write(port.resolve("hw_counters/retry_exceeded_err"), "5");
        write(tmp.resolve("dev/uverbs0"), "");
        return new String[] {"--sysfs-root", tmp.resolve("sys").toString(), "--dev-dir", tmp.resolve("dev").toString()};
    }

    private static void write(final Path file, final String line) throws IOException
    {
        Files.createDirectories(file.getParent());
        Files.writeString(file, line + "\n");
    }

    private static String[] args(final String[] fixture, final String... more)
    {
        final List<String> all = new ArrayList<>(List.of("doctor"));
        all.addAll(List.of(fixture));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

    @Test
    void shouldWarnAndPickTcpWithExitZeroOnThisHostWithoutRdma()
    {
        assumeFalse(Files.isDirectory(Path.of("/dev/infiniband")), "this host has RDMA device files");
        final Run r = run("doctor");

        assertEquals(0, r.code, r.out + r.err);
        assertTrue(r.out.contains("[WARN] device files: no /dev/infiniband"), r.out);
        assertTrue(r.out.contains("auto -> tcp"), r.out);
        assertTrue(r.out.contains("== memory pool =="), r.out);
        assertTrue(r.out.contains("pool.size 64.0 MiB (67108864 bytes)"), r.out);
        assertTrue(r.out.contains("verdict: WARN (exit 0)"), r.out);
    }

    @Test
    void shouldReportTheFixtureDevicePortGidsAndCounters() throws IOException
    {
        final Run r = run(args(fixture(), "--pin", "OFF"));

        assertEquals(0, r.code, r.out + r.err);
        assertTrue(r.out.contains("== port rxe0/1 =="), r.out);
        assertTrue(r.out.contains("[OK  ] state: ACTIVE (4), phys LinkUp (5), 10 Gb/sec (1X QDR), Ethernet"), r.out);
        assertTrue(r.out.contains("active MTU: (needs the verbs transport)"), r.out);
        assertTrue(r.out.contains("GID[1] 0000:0000:0000:0000:0000:ffff:0a00:0002  RoCE v2  eth0"), r.out);
        assertTrue(r.out.contains("[WARN] hw counters: retry_exceeded_err=5"), r.out);
        assertTrue(r.out.contains("[OK  ] device files: " + tmp.resolve("dev") + ": uverbs0"), r.out);
        assertTrue(r.out.contains("[OK  ] memlock: the pool is not pinned (pool.pin OFF)"), r.out);
    }

    @Test
    void shouldPrintOneJsonDocument() throws IOException
    {
        final Run r = run(args(fixture(), "--json", "--pool-size", "16MiB"));

        assertEquals(0, r.code, r.err);
        assertTrue(r.out.startsWith("{\"verdict\":\"WARN\",\"exitCode\":0,\"sections\":[{\"title\":\"configuration\""),
            r.out);
        assertTrue(r.out.endsWith("}\n"), r.out);
        assertEquals(1, r.out.lines().count(), "one line of JSON");
        assertTrue(r.out.contains("\"devices\":[{\"name\":\"rxe0\""), r.out);
        assertTrue(r.out.contains("\"hwCounters\":{\"rcvd_rnr_err\":0,\"retry_exceeded_err\":5}"), r.out);
        assertTrue(r.out.contains("pool.size=16777216"), r.out);

        final JsonNode root = new ObjectMapper().readTree(r.out);
        assertEquals("WARN", root.get("verdict").asText());
        assertTrue(root.get("exitCode").isInt() && root.get("sections").isArray(), r.out);
        final JsonNode port = root.get("devices").get(0).get("ports").get(0);
        assertTrue(port.get("port").isInt() && port.get("stateCode").isInt() && port.get("lid").isInt(), r.out);
        assertEquals(5, port.get("hwCounters").get("retry_exceeded_err").asLong(), r.out);
        assertTrue(port.get("gids").isArray() && port.get("unreadable").isArray(), r.out);
    }

    @Test
    void shouldExitTwoWhenVerbsIsRequestedButUnusable() throws IOException
    {
        final Run r = run(args(fixture(), "--transport", "verbs"));

        assertEquals(2, r.code, r.out + r.err);
        assertTrue(r.out.contains("[FAIL] requested: "), r.out);
        assertTrue(r.out.contains("verdict: FAIL (exit 2)"), r.out);
        assertTrue(r.out.contains("  FAIL transport selection: requested:"), r.out);
    }

    @Test
    void shouldExitTwoWithTheSettingNamedForABadConfiguration() throws IOException
    {
        final Path config = tmp.resolve("node.properties");
        Files.writeString(config, "pool.size = lots\n");
        final Run r = run("doctor", "--config", config.toString());

        assertEquals(2, r.code, r.out + r.err);
        assertTrue(r.out.contains("[FAIL] settings: pool.size must be a size like 65536, 64MiB or 1GiB: 'lots'"),
            r.out);
        assertTrue(r.out.contains("[WARN] memlock: not checked"), r.out);
        assertFalse(r.out.contains("Exception"), r.out);
    }

    @Test
    void shouldReadPoolSizeAndPinFromTheConfigFile() throws IOException
    {
        final Path config = tmp.resolve("node.properties");
        Files.writeString(config, "pool.size=32MiB\npool.pin=OFF\ntransport=tcp\n");
        final Run r = run("doctor", "--config", config.toString());

        assertEquals(0, r.code, r.out + r.err);
        assertTrue(r.out.contains("[OK  ] settings: from " + config + ": pool.size=33554432, pool.pin=OFF, " +
            "transport=tcp"), r.out);
        assertTrue(r.out.contains("[OK  ] requested: transport=tcp is usable"), r.out);
        assertTrue(r.out.contains("pool.size 32.0 MiB (33554432 bytes)"), r.out);
    }

    /**
     * The real refusal: a child JVM under {@code prlimit --memlock=64KiB} without {@code CAP_IPC_LOCK} runs doctor for
     * a 64 MiB pool that must be pinned, and must exit 2 with the fix.
     */
    @Test
    void shouldExitTwoWithTheFixWhenThePinnedPoolIsAboveMemlock() throws Exception
    {
        final String text = doctorUnderMemlock(65536, "--pool-size", "64MiB", "--pin", "REQUIRED",
            "--transport", "tcp");

        assertTrue(text.contains("[FAIL] memlock: the server would refuse to start"), text);
        assertTrue(text.contains("64.0 KiB (65536 bytes)"), text);
        assertTrue(text.contains("fix: raise the limit before starting, e.g. `ulimit -l unlimited`"), text);
    }

    /**
     * On verbs a pool that fits the limit is not enough: under a distribution's usual 8 MiB a 4 MiB pool plus the
     * worker's default endpoint buffers (16 x 5 MiB) is refused, with the parts and the settings that pin less
     * (the buffers are sized from the settings, so this runs where verbs itself is unusable).
     */
    @Test
    void shouldCountTheEndpointBuffersOnVerbsBesideThePool() throws Exception
    {
        final String text = doctorUnderMemlock(8 << 20, "--pool-size", "4MiB", "--transport", "verbs");

        assertTrue(text.contains("[FAIL] memlock: the server would refuse to start: on verbs the pool and the " +
            "request worker's endpoint buffers are registered"), text);
        assertTrue(text.contains("pool.size 4.0 MiB (4194304 bytes) + endpoint buffers 1 worker x 80.1 MiB " +
            "(83951616 bytes) (verbs.maxEndpoints 16 x 5124 KiB per endpoint"), text);
        assertTrue(text.contains("or pin less: lower pool.size (now 4.0 MiB), verbs.maxEndpoints (now 16), " +
            "verbs.sendDepth (now 128) or verbs.recvDepth (now 128)"), text);
    }

    /** Doctor's text report from a child JVM whose memlock limit is {@code bytes}, without CAP_IPC_LOCK; exit 2. */
    private String doctorUnderMemlock(final long bytes, final String... doctorArgs) throws Exception
    {
        final String prlimit = findTool("prlimit");
        assumeTrue(prlimit != null, "prlimit (util-linux) not found: cannot lower RLIMIT_MEMLOCK for a child");
        final List<String> command = new ArrayList<>(List.of(prlimit, "--memlock=" + bytes + ":" + bytes));
        if (MemlockLimit.current().ipcLockCapability())
        {
            final String setpriv = findTool("setpriv");
            assumeTrue(setpriv != null, "running with CAP_IPC_LOCK and no setpriv to drop it: limit not enforced");
            command.addAll(List.of(setpriv, "--bounding-set=-ipc_lock", "--inh-caps=-ipc_lock"));
        }
        command.addAll(List.of(ProcessHandle.current().info().command().orElse(
            System.getProperty("java.home") + "/bin/java"), "-Xmx64m", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
            "-cp", System.getProperty("java.class.path"), RdmakvMain.class.getName(), "doctor"));
        command.addAll(List.of(doctorArgs));
        final Path out = Files.createTempFile(tmp, "doctor", ".out");
        final Process p = new ProcessBuilder(command).redirectOutput(out.toFile())
            .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(45, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            throw new AssertionError("child did not finish: " + command);
        }
        final String text = Files.readString(out);
        assertEquals(2, p.exitValue(), text);
        return text;
    }

    private static String findTool(final String name)
    {
        for (final String dir : new String[] {"/usr/bin", "/bin", "/usr/sbin", "/sbin"})
        {
            if (Files.isExecutable(Path.of(dir, name)))
            {
                return dir + "/" + name;
            }
        }
        return null;
    }
}

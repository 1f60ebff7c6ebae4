package io.rdmakv.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher ({@code bin/rdmakv}) starts short commands (a request, a report, the cluster admin commands) with the
 * fast-start flags (C1 only, the serial collector) and long-running ones (a node, {@code cluster local}, a benchmark)
 * without them. Run with a {@code java} that prints its arguments instead of starting, so nothing but the script runs.
 */
class LauncherFlagsTest
{
    private static final String FAST = "-XX:TieredStopAtLevel=1";

    @TempDir
    Path dir;

    @Test
    void shouldStartShortCommandsFastAndLongOnesWithTheFullJit() throws Exception
    {
        for (final String command : new String[]{"get k", "stats", "cluster status", "cluster remove-node 3",
            "cluster failover", "doctor"})
        {
            assertTrue(launch(command).contains(FAST), command + " starts with the fast-start flags");
        }
        for (final String command : new String[]{"server", "cluster local --nodes 3", "bench", "demo"})
        {
            assertFalse(launch(command).contains(FAST), command + " keeps the full JIT");
        }
    }

    /** The arguments the launcher gives java for {@code command}. */
    private String launch(final String command) throws IOException, InterruptedException
    {
        final Path javaHome = dir.resolve("jdk");
        final Path java = javaHome.resolve("bin").resolve("java");
        if (!Files.exists(java))
        {
            Files.createDirectories(java.getParent());
            Files.writeString(java, "#!/bin/sh\necho \"$@\"\n", StandardCharsets.UTF_8);
            Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
            Files.writeString(dir.resolve("rdmakv.jar"), "");
        }
        final Path launcher = Path.of("").toAbsolutePath().getParent().resolve("bin").resolve("rdmakv");
        final List<String> args = new ArrayList<>(List.of("bash", launcher.toString()));
        args.addAll(List.of(command.split(" ")));
        final ProcessBuilder pb = new ProcessBuilder(args).redirectErrorStream(true);
        pb.environment().put("JAVA_HOME", javaHome.toString());
        pb.environment().put("RDMAKV_JAR", dir.resolve("rdmakv.jar").toString());
        pb.environment().put("RDMAKV_CDS", "off");
        pb.environment().remove("RDMAKV_JAVA_OPTS");
        final Process p = pb.start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        return out;
    }
}

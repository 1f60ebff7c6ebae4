package io.rdmakv.pool;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Starts a child JVM under {@code prlimit --memlock=65536:65536} (64 KiB) that maps a 64 MiB arena, and checks
 * what an operator would see. When the tests run with {@code CAP_IPC_LOCK} (root in most containers) the kernel
 * would ignore the limit, so the child also drops that capability through {@code setpriv}.
 */
class MemlockRefusalTest
{
    private static final long LIMIT = 65536;
    private static final long SIZE = 64L << 20;

    private record Result(int exitCode, String stdout, String stderr)
    {
    }

    @Test
    @Timeout(60)
    void shouldRefuseToStartWhenTheLimitIsBelowThePoolUnderRequired() throws Exception
    {
        final Result result = runChild(PinPolicy.REQUIRED, true);
        assertEquals(3, result.exitCode(), result.stderr());
        assertNamesFiguresAndFixes(result.stderr());
        assertTrue(result.stderr().contains("RLIMIT_MEMLOCK is smaller than the pool"), result.stderr());
    }

    @Test
    @Timeout(60)
    void shouldExplainAnMlockFailureTheSameWayWhenThePrecheckIsSkipped() throws Exception
    {
        final Result result = runChild(PinPolicy.REQUIRED, false);
        assertEquals(3, result.exitCode(), result.stderr());
        assertNamesFiguresAndFixes(result.stderr());
        assertTrue(result.stderr().contains("mlock failed with"), result.stderr());
    }

    @Test
    @Timeout(60)
    void shouldContinueUnpinnedWithOneWarningUnderBestEffort() throws Exception
    {
        final Result result = runChild(PinPolicy.BEST_EFFORT, true);
        assertEquals(0, result.exitCode(), result.stderr());
        assertTrue(result.stdout().contains("mapped pinned=false"), result.stdout());
        assertEquals(1, countOccurrences(result.stderr(), "WARN"), result.stderr());
        assertEquals(1, countOccurrences(result.stderr(), "UNPINNED"), result.stderr());
        assertNamesFiguresAndFixes(result.stderr());
    }

    private static void assertNamesFiguresAndFixes(final String message)
    {
        assertTrue(message.contains("64.0 MiB") && message.contains(Long.toString(SIZE)), message);
        assertTrue(message.contains("64.0 KiB") && message.contains(Long.toString(LIMIT)), message);
        assertTrue(message.contains("ulimit -l"), message);
        assertTrue(message.contains("LimitMEMLOCK=infinity"), message);
        assertTrue(message.contains("--ulimit memlock=-1:-1"), message);
    }

    private static int countOccurrences(final String text, final String word)
    {
        int count = 0;
        for (int i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1))
        {
            count++;
        }
        return count;
    }

    private static Result runChild(final PinPolicy policy, final boolean precheck) throws Exception
    {
        final String prlimit = findTool("prlimit");
        assumeTrue(prlimit != null, "prlimit (util-linux) not found: cannot lower RLIMIT_MEMLOCK for a child");
        final String java = ProcessHandle.current().info().command().orElse(
            System.getProperty("java.home") + "/bin/java");

        final List<String> command = new ArrayList<>();
        command.add(prlimit);
        command.add("--memlock=" + LIMIT + ":" + LIMIT);
        if (MemlockLimit.current().ipcLockCapability())
        {
            final String setpriv = findTool("setpriv");
            assumeTrue(setpriv != null, "running with CAP_IPC_LOCK and no setpriv to drop it: limit not enforced");
            command.add(setpriv);
            command.add("--bounding-set=-ipc_lock");
            command.add("--inh-caps=-ipc_lock");
        }
        command.add(java);
        command.add("-Xmx64m");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-XX:+UseSerialGC");
        command.add("--add-opens");                    // Agrona 2.x needs jdk.internal.misc.Unsafe
        command.add("java.base/jdk.internal.misc=ALL-UNNAMED");
        command.add("--enable-native-access=ALL-UNNAMED"); // JNA, and FFM on 22+: JDK 22-25 warn without it
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(MemlockChildMain.class.getName());
        command.add(policy.name());
        command.add(Long.toString(SIZE));
        command.add(Boolean.toString(precheck));

        final Path out = Files.createTempFile("memlock-child", ".out");
        final Path err = Files.createTempFile("memlock-child", ".err");
        try
        {
            final Process process = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
            if (!process.waitFor(45, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
                throw new AssertionError("child JVM did not finish: " + command);
            }
            return new Result(
                process.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        }
        finally
        {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static String findTool(final String name) throws IOException
    {
        for (final String dir : List.of("/usr/bin", "/bin", "/usr/sbin", "/sbin"))
        {
            final File file = new File(dir, name);
            if (file.canExecute())
            {
                return file.getPath();
            }
        }
        return null;
    }
}

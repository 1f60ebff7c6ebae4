package io.rdmakv.it.softroce;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The guest job's JUnit wrapper ({@code rdmakv-junit}, written by {@code guest-job.sh}) run on the host with a fake
 * {@code java} in place of the JUnit console launcher: the classes that failed run once more only when a JVM left an
 * {@code hs_err_pid*.log} during the run (an emulation fault in compiled code), the second run decides, and
 * {@code verify-guest-results.sh} names the crash. A failure without a crash is never run again.
 */
class GuestJunitRerunTest
{
    private static final Path SCRIPTS = Path.of(System.getProperty("user.dir")).resolve("../docker/softroce")
        .normalize();
    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(30);
    private static final String FAILING = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
        "<testsuite name=\"JUnit Jupiter\" tests=\"2\" skipped=\"0\" failures=\"1\" errors=\"0\" time=\"1\">\n" +
        "<testcase name=\"passes()\" classname=\"x.Fine\" time=\"0.1\">\n</testcase>\n" +
        "<testcase name=\"peerKilled()\" classname=\"x.Crashed\" time=\"15.8\">\n" +
        "<failure message=\"verbs connect failed: Connection reset\" type=\"X\">trace</failure>\n</testcase>\n" +
        "</testsuite>\n";
    private static final String PASSING = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
        "<testsuite name=\"JUnit Jupiter\" tests=\"1\" skipped=\"0\" failures=\"0\" errors=\"0\" time=\"1\">\n" +
        "<testcase name=\"peerKilled()\" classname=\"x.Crashed\" time=\"9.0\">\n</testcase>\n</testsuite>\n";

    @TempDir
    Path dir;

    private Path share;
    private Path helper;
    private Path calls;

    @BeforeEach
    void writeHelperAndFakeJava() throws IOException
    {
        share = Files.createDirectories(dir.resolve("share"));
        calls = dir.resolve("calls.txt");
        final String job = Files.readString(SCRIPTS.resolve("guest-job.sh"));
        final String start = "cat > /usr/local/bin/rdmakv-junit <<'HELPER'\n";
        final int from = job.indexOf(start) + start.length();
        helper = executable(dir.resolve("rdmakv-junit"), job.substring(from, job.indexOf("\nHELPER\n", from) + 1));
    }

    /**
     * A fake {@code java}: logs its selectors, writes run N's report into {@code --reports-dir}, and on the first run
     * also an hs_err file into the share when {@code crash} says so.
     */
    private void fakeJava(final boolean crash, final String firstReport, final int firstExit) throws IOException
    {
        Files.writeString(dir.resolve("first.xml"), firstReport);
        Files.writeString(dir.resolve("second.xml"), PASSING);
        Files.createDirectories(dir.resolve("jdk/bin"));
        executable(dir.resolve("jdk/bin/java"), "#!/bin/bash\n" +
            "[ \"$1\" = -version ] && { echo 'openjdk version \"25.0.3\"'; exit 0; }\n" +
            "reports=; prev=; selected=\n" +
            "for a in \"$@\"; do [ \"$prev\" = --reports-dir ] && reports=$a; " +
            "[ \"$prev\" = --select-class ] && selected=\"$selected $a\"; prev=$a; done\n" +
            "echo \"run:$selected\" >> " + calls + "\n" +
            "if [ ! -f " + dir.resolve("ran") + " ]; then\n" +
            "  touch " + dir.resolve("ran") + "\n" +
            (crash ? "  printf '# SIGSEGV (0xb) at pc=0x1\\n# Problematic frame:\\n# J 69 c1 java.util.AbstractCollection" +
                ".<init>()V\\n' > " + share.resolve("hs_err_pid2173.log") + "\n" : "") +
            "  cp " + dir.resolve("first.xml") + " \"$reports/TEST-junit-jupiter.xml\"; exit " + firstExit + "\n" +
            "fi\n" +
            "cp " + dir.resolve("second.xml") + " \"$reports/TEST-junit-jupiter.xml\"; exit 0\n");
    }

    private GuestProcess.Result runHelper()
    {
        final GuestProcess.Result result;
        try (GuestProcess process = GuestProcess.start(List.of(
            "RDMAKV_REPORTS", share.resolve("reports").toString(), "RDMAKV_SHARE", share.toString(),
            "RDMAKV_JUNIT_JAVA_HOME", dir.resolve("jdk").toString(), "RDMAKV_LAUNCHER", "launcher.jar",
            "RDMAKV_CLASSPATH", "test-classes", "RDMAKV_JAVA_OPTS", ""),
            helper.toString(), "named", "--select-class", "x.Fine", "--select-class", "x.Crashed"))
        {
            result = process.await(SCRIPT_TIMEOUT);
        }
        return result;
    }

    @Test
    @Timeout(60)
    void shouldRunTheFailedClassesOnceMoreAfterAJvmCrashAndLetTheSecondRunDecide() throws IOException
    {
        fakeJava(true, FAILING, 1);

        final GuestProcess.Result result = runHelper();

        assertEquals(0, result.exitCode(), result::describe);
        assertEquals(List.of("run: x.Fine x.Crashed", "run: x.Crashed"), Files.readAllLines(calls),
            "the second run selects only the class that failed");
        final Path named = share.resolve("reports/named");
        assertTrue(Files.exists(named.resolve("first-run/TEST-junit-jupiter.xml.first")), result::describe);
        assertTrue(Files.exists(named.resolve("rerun/TEST-junit-jupiter.xml")), result::describe);
        assertTrue(Files.exists(named.resolve("hs_err_pid2173.log")), "the crash log is kept with the run's reports");
        assertTrue(result.output().contains("a JVM crashed during this run"), result::describe);

        Files.writeString(share.resolve("host-exit-code"), "0\n");
        final GuestProcess.Result verdict = GuestProcess.run(SCRIPT_TIMEOUT,
            SCRIPTS.resolve("verify-guest-results.sh").toString(), share.toString());
        assertTrue(verdict.output().contains("softroce: 1 passed, 0 failed"), verdict::describe);
        assertTrue(verdict.output().contains("a JVM crashed in the guest"), verdict::describe);
        assertTrue(verdict.output().contains("SIGSEGV (0xb)"), verdict::describe);
        assertTrue(verdict.output().contains("first run FAILED name=\"peerKilled()\" classname=\"x.Crashed\""),
            verdict::describe);
    }

    @Test
    @Timeout(60)
    void shouldNeverRunAFailureAgainWithoutACrash() throws IOException
    {
        fakeJava(false, FAILING, 1);

        final GuestProcess.Result result = runHelper();

        assertEquals(1, result.exitCode(), result::describe);
        assertEquals(List.of("run: x.Fine x.Crashed"), Files.readAllLines(calls));
        assertFalse(Files.exists(share.resolve("reports/named/rerun")), result::describe);
        assertFalse(Files.exists(share.resolve("reports/named/first-run")), result::describe);
    }

    private static Path executable(final Path file, final String text) throws IOException
    {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
        return file;
    }
}

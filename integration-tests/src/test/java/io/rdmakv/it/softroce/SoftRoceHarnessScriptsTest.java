package io.rdmakv.it.softroce;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Host-side tests of the SoftRoCE harness scripts in {@code docker/softroce}: the verdict on a guest run (exit code
 * and JUnit XML must both be clean) and the clear refusals of run-in-guest.sh. They need bash, not qemu, so they
 * run in the default build.
 */
class SoftRoceHarnessScriptsTest
{
    private static final Path SCRIPTS = Path.of(System.getProperty("user.dir")).resolve("../docker/softroce")
        .normalize();
    private static final Duration SCRIPT_TIMEOUT = Duration.ofSeconds(30);

    @TempDir
    Path share;

    @Test
    @Timeout(60)
    void shouldPassWhenTheJobExitedZeroAndEveryReportIsClean() throws IOException
    {
        hostExitCode(0);
        report("tagged", 3, 0, 0, 1);
        report("unprivileged", 2, 0, 0, 0);

        final GuestProcess.Result result = verify();

        assertEquals(0, result.exitCode(), result::describe);
        assertTrue(result.output().contains("softroce: 4 passed, 0 failed, 1 skipped"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldFailWhenAReportShowsAFailureThoughTheJobExitedZero() throws IOException
    {
        hostExitCode(0);
        report("tagged", 3, 1, 0, 0);

        final GuestProcess.Result result = verify();

        assertEquals(1, result.exitCode(), result::describe);
        assertTrue(result.output().contains("1 test(s) failed in the guest"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldCountErrorsAsFailures() throws IOException
    {
        hostExitCode(0);
        report("named", 2, 0, 2, 0);

        final GuestProcess.Result result = verify();

        assertEquals(1, result.exitCode(), result::describe);
        assertTrue(result.output().contains("softroce: 0 passed, 2 failed, 0 skipped"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldFailWhenTheJobFailedThoughTheReportsAreClean() throws IOException
    {
        hostExitCode(1);
        report("tagged", 3, 0, 0, 0);
        Files.createDirectories(share.resolve("results"));
        Files.writeString(share.resolve("results/summary.txt"), "perftest: FAILED (exit 1)\njunit-tagged: passed\n");

        final GuestProcess.Result result = verify();

        assertEquals(1, result.exitCode(), result::describe);
        assertTrue(result.output().contains("the guest job failed (exit 1): perftest: FAILED"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldFailOnAFailedDoctorStepAndQuoteTheDoctorsVerdict() throws IOException
    {
        hostExitCode(1);
        report("tagged", 3, 0, 0, 0);
        Files.createDirectories(share.resolve("results"));
        Files.writeString(share.resolve("results/summary.txt"), "doctor: FAILED (exit 2)\njunit-tagged: passed\n");
        Files.writeString(share.resolve("results/doctor.txt"), "rdmakv doctor\n\n== memory pool ==\n" +
            "verdict: FAIL (exit 2): 0 warning(s), 1 failure(s)\n  FAIL memory pool: memlock: too low\n");

        final GuestProcess.Result result = verify();

        assertEquals(1, result.exitCode(), result::describe);
        assertTrue(result.output().contains("the guest job failed (exit 1): doctor: FAILED (exit 2)"),
            result::describe);
        assertTrue(result.output().contains("rdmakv doctor (results/doctor.txt): verdict: FAIL (exit 2)"),
            result::describe);
    }

    @Test
    @Timeout(60)
    void shouldPrintTheVerbsTargetsTableAndPassWhateverTheFiguresSay() throws IOException
    {
        hostExitCode(0);
        report("tagged", 4, 0, 0, 0);
        results("perftest.properties", "ib_read_lat.128B.typical_us=100.0", "ib_send_lat.128B.typical_us=20.0");
        results("rdmakv.properties", "rdmakv.get.oneSided.cached.p50.us=250.0",
            "rdmakv.get.oneSided.cached.progressThread.p50.us=700.0",
            "rdmakv.get.oneSided.cached.callerCompleted.percent=99.5",
            "rdmakv.get.oneSided.cold.p50.us=400.0", "rdmakv.get.oneSided.firstRead.p50.us=410.0",
            "rdmakv.put.p50.us=900.0", "rdmakv.server.cpu.perOneSidedGet.us=30.00",
            "rdmakv.server.cpu.perRpcGet.us=60.00", "rdmakv.server.cpu.net.perOneSidedGet.us=0.00",
            "rdmakv.server.cpu.net.perRpcGet.us=40.00", "rdmakv.server.cpu.idle.percentOfOneCore=45.0");
        results("rocksdb.properties", "rocksdb.write.p50.us=10.0");
        results("startup.properties", "startup.ms=45600", "startup.data.mib=128.0",
            "startup.phase.poolRegistration.ms=812", "startup.phase.warmUp.ms=9000", "startup.phase.poolMapPin.ms=300",
            "startup.sampledKeys.oneSidedHits=1024");

        final GuestProcess.Result result = verify();

        // Every ratio misses its target by far: the table says so in numbers, the build still passes.
        assertEquals(0, result.exitCode(), result::describe);
        final String out = result.output();
        assertTrue(out.contains("#5 verbs targets"), result::describe);
        assertTrue(out.matches("(?s).*location cached / ib_read_lat +2\\.500 +<= 1\\.3 +250\\.0 us / 100\\.0 us.*"),
            result::describe);
        assertTrue(out.matches("(?s).*progress\\.callerDriven=false +7\\.000 +<= 1\\.3 +700\\.0 us / 100\\.0 us.*"),
            result::describe);
        assertTrue(out.contains("(cached GETs completed on the caller's own thread: 99.5%)"), result::describe);
        assertTrue(out.matches("(?s).*cold \\(no cache\\) / ib_read_lat +4\\.000 +<= 2\\.5 .*"), result::describe);
        assertTrue(out.matches("(?s).*first read / ib_read_lat +4\\.100 .*"), result::describe);
        // 900 / (2 x 20 + 10)
        assertTrue(out.matches(
            "(?s).*RocksDB write alone\\) +18\\.000 +<= 1\\.5 +900\\.0 us / \\(2 x 20\\.0 \\+ 10\\.0\\) us.*"),
            result::describe);
        assertTrue(out.matches("(?s).*one-sided / RPC \\(gross\\) +0\\.500 +< 0\\.02 .*"), result::describe);
        assertTrue(out.matches("(?s).*one-sided / RPC \\(net of idle\\) +0\\.000 +< 0\\.02 .*"), result::describe);
        assertTrue(out.matches(
            "(?s).*128\\.0 MiB in RocksDB, verbs node READY +45\\.6 s +1 GiB/10 s +pool registration 812 ms.*"),
            result::describe);
    }

    @Test
    @Timeout(60)
    void shouldSayWhichFigureIsMissingOrUnusableInsteadOfARatio() throws IOException
    {
        hostExitCode(0);
        report("tagged", 4, 0, 0, 0);
        results("perftest.properties", "ib_read_lat.128B.typical_us=unusable", "ib_send_lat.128B.typical_us=20.0");
        results("rdmakv.properties", "rdmakv.get.oneSided.cached.p50.us=250.0", "rdmakv.put.p50.us=900.0");

        final GuestProcess.Result result = verify();

        assertEquals(0, result.exitCode(), result::describe);
        final String out = result.output();
        assertTrue(out.matches("(?s).*location cached / ib_read_lat +n/a +<= 1\\.3 +n/a: ib_read_lat 128B unusable.*"),
            result::describe);
        assertTrue(out.contains("n/a: cold GET p50 not measured; ib_read_lat 128B unusable"), result::describe);
        assertTrue(out.contains("n/a: RocksDB write p50 not measured"), result::describe);
        assertTrue(out.contains("n/a: startup.ms not measured"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldFailWhenNoReportCameBack() throws IOException
    {
        hostExitCode(0);

        final GuestProcess.Result result = verify();

        assertEquals(1, result.exitCode(), result::describe);
        assertTrue(result.output().contains("no JUnit XML report came back"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldFailWhenTheGuestRanNoTest() throws IOException
    {
        hostExitCode(0);
        report("tagged", 0, 0, 0, 0);

        final GuestProcess.Result result = verify();

        assertEquals(1, result.exitCode(), result::describe);
        assertTrue(result.output().contains("the guest ran no test"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldNameBootSetUpAndTimeoutFailures() throws IOException
    {
        hostExitCode(125);
        assertTrue(verify().output().contains("the guest failed to boot"));

        hostExitCode(97);
        assertTrue(verify().output().contains("SoftRoCE set-up failed in the guest"));

        hostExitCode(124);
        assertTrue(verify().output().contains("the guest timed out"));
    }

    @Test
    @Timeout(60)
    void shouldFailWhenTheHarnessNeverRan()
    {
        final GuestProcess.Result result = verify();

        assertEquals(1, result.exitCode(), result::describe);
        assertTrue(result.output().contains("the guest harness did not run"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldRejectAMissingShareDirectory()
    {
        final GuestProcess.Result result = GuestProcess.run(SCRIPT_TIMEOUT,
            SCRIPTS.resolve("run-in-guest.sh").toString(), share.resolve("absent").toString(),
            SCRIPTS.resolve("guest-job.sh").toString());

        assertEquals(2, result.exitCode(), result::describe);
        assertTrue(result.output().contains("does not exist"), result::describe);
    }

    @Test
    @Timeout(60)
    void shouldRefuseToBootWithoutACachedImageAndRecordWhy() throws IOException
    {
        final Path emptyCache = Files.createDirectory(share.resolve("empty-cache"));
        final GuestProcess.Result result;
        try (GuestProcess process = GuestProcess.start(List.of("RDMAKV_SOFTROCE_CACHE", emptyCache.toString()),
            SCRIPTS.resolve("run-in-guest.sh").toString(), share.toString(), SCRIPTS.resolve("guest-job.sh").toString()))
        {
            result = process.await(SCRIPT_TIMEOUT);
        }

        assertEquals(125, result.exitCode(), result::describe);
        assertTrue(result.output().contains("run docker/softroce/build-guest.sh first"), result::describe);
        assertEquals("125", Files.readString(share.resolve("host-exit-code")).trim());
    }

    private GuestProcess.Result verify()
    {
        return GuestProcess.run(SCRIPT_TIMEOUT, SCRIPTS.resolve("verify-guest-results.sh").toString(),
            share.toString());
    }

    private void hostExitCode(final int code) throws IOException
    {
        Files.writeString(share.resolve("host-exit-code"), code + "\n");
    }

    private void results(final String file, final String... lines) throws IOException
    {
        final Path dir = Files.createDirectories(share.resolve("results"));
        Files.writeString(dir.resolve(file), "# written by the test\n" + String.join("\n", lines) + "\n");
    }

    // The shape the JUnit console launcher's legacy XML reporter writes.
    private void report(final String name, final int tests, final int failures, final int errors, final int skipped)
        throws IOException
    {
        final Path dir = Files.createDirectories(share.resolve("reports").resolve(name));
        Files.writeString(dir.resolve("TEST-junit-jupiter.xml"),
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" +
            "<testsuite name=\"JUnit Jupiter\" tests=\"" + tests + "\" skipped=\"" + skipped + "\" failures=\"" +
            failures + "\" errors=\"" + errors + "\" time=\"1.5\" hostname=\"rdmakv-guest\">\n" +
            "<testcase name=\"shouldWork()\" classname=\"x.Y\" time=\"0.1\"/>\n" +
            "</testsuite>\n");
    }
}

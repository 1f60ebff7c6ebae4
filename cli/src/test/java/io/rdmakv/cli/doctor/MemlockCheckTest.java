package io.rdmakv.cli.doctor;

import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.ServerPinnedMemory;
import io.rdmakv.server.config.PinMode;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.transport.WorkerPinning;
import io.rdmakv.transport.verbs.VerbsTransportProvider;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemlockCheckTest
{
    private static final long POOL = 64L << 20;
    private static final long DEFAULT_SLICE = (5L << 20) + 4096;
    private static final MemlockLimit SMALL = new MemlockLimit(8L << 20, 8L << 20, false);
    private static final MemlockLimit LARGE = new MemlockLimit(1L << 30, 1L << 30, false);
    private static final MemlockLimit UNLIMITED = new MemlockLimit(MemlockLimit.UNLIMITED, MemlockLimit.UNLIMITED,
        false);
    private static final MemlockLimit SMALL_WITH_CAP = new MemlockLimit(8L << 20, 8L << 20, true);

    /** The pool alone (tcp: workers pin nothing). */
    private static ServerPinnedMemory pool(final long bytes)
    {
        return new ServerPinnedMemory(bytes, ServerPinnedMemory.SERVER_WORKERS, WorkerPinning.NONE);
    }

    /** What a verbs server with these settings pins: the pool and its worker's endpoint buffers. */
    private static ServerPinnedMemory verbs(final Map<String, String> settings)
    {
        return ServerPinnedMemory.of(ServerConfig.from(new Properties(), settings), new VerbsTransportProvider());
    }

    private static void assertRefusalFix(final Check c)
    {
        assertTrue(c.fix().contains("ulimit -l unlimited") && c.fix().contains("LimitMEMLOCK=infinity") &&
            c.fix().contains("--ulimit memlock=-1:-1") && c.fix().contains("65536"), c.fix());
        assertTrue(c.details().get(0).contains("64.0 MiB (67108864 bytes)") &&
            c.details().get(0).contains("8.0 MiB (8388608 bytes)"), c.details().toString());
    }

    @Test
    void shouldFailWhenPinningIsRequiredAndThePoolIsAboveTheLimit()
    {
        final Check c = MemlockCheck.evaluate(SMALL, pool(POOL), PinMode.REQUIRED, "tcp");
        assertEquals(Severity.FAIL, c.severity());
        assertTrue(c.message().startsWith("the server would refuse to start"), c.message());
        assertRefusalFix(c);
    }

    @Test
    void shouldFailOnVerbsWhereAutoMeansRequired()
    {
        final Check c = MemlockCheck.evaluate(SMALL, verbs(Map.of()), PinMode.AUTO, "verbs");
        assertEquals(Severity.FAIL, c.severity());
        assertTrue(c.message().contains("pool.pin AUTO -> REQUIRED on verbs"), c.message());
    }

    @Test
    void shouldFailOnVerbsEvenUnpinnedBecauseRegistrationPinsThePoolAndTheBuffers()
    {
        final Check c = MemlockCheck.evaluate(SMALL, verbs(Map.of()), PinMode.OFF, "verbs");
        assertEquals(Severity.FAIL, c.severity());
        assertTrue(c.message().startsWith("the server would refuse to start: on verbs the pool and the request " +
            "worker's endpoint buffers are registered, so pinned whatever pool.pin says"), c.message());
        assertTrue(c.fix().contains("ulimit -l unlimited") && c.fix().contains("LimitMEMLOCK=infinity") &&
            c.fix().contains("--ulimit memlock=-1:-1"), c.fix());
    }

    @Test
    void shouldFailOnVerbsWhenThePoolFitsButThePoolAndTheEndpointBuffersDoNot()
    {
        final ServerPinnedMemory pinned = verbs(Map.of("pool.size", "4MiB"));
        final long total = (4L << 20) + 16 * DEFAULT_SLICE;
        assertEquals(total, pinned.totalBytes());
        assertTrue(SMALL.allows(pinned.poolBytes()), "the pool alone fits");

        final Check c = MemlockCheck.evaluate(SMALL, pinned, PinMode.AUTO, "verbs");
        assertEquals(Severity.FAIL, c.severity());
        // The parts: pool + endpoint buffers N x slice = total.
        assertTrue(c.message().contains("pool.size 4.0 MiB (4194304 bytes) + endpoint buffers 1 worker x 80.1 MiB " +
            "(83951616 bytes) (verbs.maxEndpoints 16 x 5124 KiB per endpoint ((verbs.sendDepth 128 + " +
            "verbs.recvDepth 128) x verbs.fragmentBytes 16384 B + verbs.readBounceBytes 1052672 B, to 4 KiB)) = " +
            "84.1 MiB (" + total + " bytes)"), c.message());
        // The fix: raise the limit to the total, or pin less, naming the settings.
        assertTrue(c.fix().contains("at least " + total / 1024 + ")"), c.fix());
        assertTrue(c.fix().endsWith("or pin less: lower pool.size (now 4.0 MiB), verbs.maxEndpoints (now 16), " +
            "verbs.sendDepth (now 128) or verbs.recvDepth (now 128)"), c.fix());
        assertTrue(c.details().get(0).contains("Requested 84.1 MiB (" + total + " bytes)") &&
            c.details().get(0).contains("8.0 MiB (8388608 bytes)"), c.details().toString());
    }

    @Test
    void shouldPassOnVerbsWhenFewerEndpointsMakeItFitAndJudgeTheBoundaryByBytes()
    {
        final ServerPinnedMemory pinned = verbs(Map.of("pool.size", "2MiB", "verbs.maxEndpoints", "1"));
        assertEquals((2L << 20) + DEFAULT_SLICE, pinned.totalBytes());
        final Check ok = MemlockCheck.evaluate(SMALL, pinned, PinMode.AUTO, "verbs");
        assertEquals(Severity.OK, ok.severity());
        assertTrue(ok.message().startsWith("the pool and the endpoint buffers fit: pool.size 2.0 MiB"), ok.message());

        final long total = pinned.totalBytes();
        assertEquals(Severity.OK, MemlockCheck.evaluate(new MemlockLimit(total, total, false), pinned,
            PinMode.AUTO, "verbs").severity());
        assertEquals(Severity.FAIL, MemlockCheck.evaluate(new MemlockLimit(total - 4096, total, false), pinned,
            PinMode.AUTO, "verbs").severity());
    }

    @Test
    void shouldWarnWhenTcpWouldRunTheBestEffortPoolUnpinned()
    {
        final Check c = MemlockCheck.evaluate(SMALL, pool(POOL), PinMode.AUTO, "tcp");
        assertEquals(Severity.WARN, c.severity());
        assertTrue(c.message().startsWith("the pool would run unpinned"), c.message());
        assertTrue(c.message().contains("AUTO -> BEST_EFFORT on tcp"), c.message());
        assertRefusalFix(c);
    }

    @Test
    void shouldPassWhenTheLimitDoesNotApplyOrIsLargeEnough()
    {
        assertEquals(Severity.OK, MemlockCheck.evaluate(SMALL, pool(POOL), PinMode.OFF, "tcp").severity());
        assertEquals(Severity.OK,
            MemlockCheck.evaluate(LARGE, verbs(Map.of()), PinMode.REQUIRED, "verbs").severity());
        assertEquals(Severity.OK,
            MemlockCheck.evaluate(UNLIMITED, verbs(Map.of()), PinMode.REQUIRED, "verbs").severity());
        final Check cap = MemlockCheck.evaluate(SMALL_WITH_CAP, verbs(Map.of()), PinMode.REQUIRED, "verbs");
        assertEquals(Severity.OK, cap.severity());
        assertTrue(cap.message().contains("CAP_IPC_LOCK"), cap.message());
        assertNull(cap.fix());
    }

    @Test
    void shouldJudgeTheBoundaryByBytes()
    {
        assertEquals(Severity.OK, MemlockCheck.evaluate(SMALL, pool(8L << 20), PinMode.REQUIRED, "tcp").severity());
        assertEquals(Severity.FAIL,
            MemlockCheck.evaluate(SMALL, pool((8L << 20) + 4096), PinMode.REQUIRED, "tcp").severity());
    }
}

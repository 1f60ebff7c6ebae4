package io.rdmakv.cli.doctor;

import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.config.PinMode;
import io.rdmakv.transport.diag.Check;
import io.rdmakv.transport.diag.Severity;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MemlockCheckTest
{
    private static final long POOL = 64L << 20;
    private static final MemlockLimit SMALL = new MemlockLimit(8L << 20, 8L << 20, false);
    private static final MemlockLimit LARGE = new MemlockLimit(1L << 30, 1L << 30, false);
    private static final MemlockLimit UNLIMITED = new MemlockLimit(MemlockLimit.UNLIMITED, MemlockLimit.UNLIMITED,
        false);
    private static final MemlockLimit SMALL_WITH_CAP = new MemlockLimit(8L << 20, 8L << 20, true);

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
        final Check c = MemlockCheck.evaluate(SMALL, POOL, PinMode.REQUIRED, "tcp");
        assertEquals(Severity.FAIL, c.severity());
        assertTrue(c.message().startsWith("the server would refuse to start"), c.message());
        assertRefusalFix(c);
    }

    @Test
    void shouldFailOnVerbsWhereAutoMeansRequired()
    {
        final Check c = MemlockCheck.evaluate(SMALL, POOL, PinMode.AUTO, "verbs");
        assertEquals(Severity.FAIL, c.severity());
        assertTrue(c.message().contains("pool.pin AUTO -> REQUIRED on verbs"), c.message());
    }

    @Test
    void shouldFailOnVerbsEvenUnpinnedBecauseRegistrationPinsThePool()
    {
        final Check c = MemlockCheck.evaluate(SMALL, POOL, PinMode.OFF, "verbs");
        assertEquals(Severity.FAIL, c.severity());
        assertTrue(c.message().startsWith("memory registration would fail"), c.message());
        assertRefusalFix(c);
    }

    @Test
    void shouldWarnWhenTcpWouldRunTheBestEffortPoolUnpinned()
    {
        final Check c = MemlockCheck.evaluate(SMALL, POOL, PinMode.AUTO, "tcp");
        assertEquals(Severity.WARN, c.severity());
        assertTrue(c.message().startsWith("the pool would run unpinned"), c.message());
        assertTrue(c.message().contains("AUTO -> BEST_EFFORT on tcp"), c.message());
        assertRefusalFix(c);
    }

    @Test
    void shouldPassWhenTheLimitDoesNotApplyOrIsLargeEnough()
    {
        assertEquals(Severity.OK, MemlockCheck.evaluate(SMALL, POOL, PinMode.OFF, "tcp").severity());
        assertEquals(Severity.OK, MemlockCheck.evaluate(LARGE, POOL, PinMode.REQUIRED, "verbs").severity());
        assertEquals(Severity.OK, MemlockCheck.evaluate(UNLIMITED, POOL, PinMode.REQUIRED, "verbs").severity());
        final Check cap = MemlockCheck.evaluate(SMALL_WITH_CAP, POOL, PinMode.REQUIRED, "verbs");
        assertEquals(Severity.OK, cap.severity());
        assertTrue(cap.message().contains("CAP_IPC_LOCK"), cap.message());
        assertNull(cap.fix());
    }

    @Test
    void shouldJudgeTheBoundaryByBytes()
    {
        assertEquals(Severity.OK, MemlockCheck.evaluate(SMALL, 8L << 20, PinMode.REQUIRED, "tcp").severity());
        assertEquals(Severity.FAIL,
            MemlockCheck.evaluate(SMALL, (8L << 20) + 4096, PinMode.REQUIRED, "tcp").severity());
    }
}

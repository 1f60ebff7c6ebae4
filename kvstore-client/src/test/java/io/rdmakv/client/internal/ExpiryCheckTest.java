package io.rdmakv.client.internal;

import io.rdmakv.client.internal.ExpiryCheck.Verdict;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/** The one-sided expiry rule on fixed clocks: sure answers only, the band between asks the node. */
class ExpiryCheckTest
{
    /** A write at this wall-clock millisecond (a version as DataVersions issues one: node 3, count 5). */
    private static final long WRITTEN = 1_765_000_000_000L;
    private static final long VERSION = WRITTEN << ExpiryCheck.VERSION_CLOCK_SHIFT | 5 << 8 | 3;

    @Test
    void shouldAnswerSurelyLiveSurelyExpiredAndAskInTheBandBetween()
    {
        final long expiry = WRITTEN + 1_000; // a TTL of one second
        assertEquals(Verdict.LIVE, ExpiryCheck.decide(expiry, VERSION, WRITTEN, 1.1), "just written");
        assertEquals(Verdict.LIVE, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 908, 1.1), "908 * 1.1 < 999");
        assertEquals(Verdict.ASK_NODE, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 909, 1.1),
            "909 * 1.1 = 999.9, rounded up: the node may be in its last millisecond");
        assertEquals(Verdict.ASK_NODE, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 910, 1.1), "910 * 1.1 > 1000");
        assertEquals(Verdict.ASK_NODE, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 1_000, 1.1),
            "at the expiry on the reader's clock the node's may still be before it");
        assertEquals(Verdict.ASK_NODE, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 1_099, 1.1), "1099 / 1.1 < 1000");
        assertEquals(Verdict.ASK_NODE, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 1_100, 1.1),
            "1100 / 1.1 is 1000 exactly, but not in floating point: rounded towards asking");
        assertEquals(Verdict.EXPIRED, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 1_101, 1.1), "1101 / 1.1 > 1000");
        assertEquals(Verdict.EXPIRED, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 86_400_000, 1.1));
    }

    @Test
    void shouldAskTheNodeWhenTheReadersClockIsBehindTheWrite()
    {
        assertEquals(Verdict.ASK_NODE, ExpiryCheck.decide(WRITTEN + 60_000, VERSION, WRITTEN - 1, 1.1));
    }

    @Test
    void shouldNeverDecideForAValueWithoutExpiry()
    {
        assertEquals(Verdict.LIVE, ExpiryCheck.decide(0, VERSION, Long.MAX_VALUE, 1.1));
        assertEquals(Verdict.LIVE, ExpiryCheck.decide(0, VERSION, 0, 1.1));
    }

    @Test
    void shouldBeExactWithoutDrift()
    {
        final long expiry = WRITTEN + 500;
        assertEquals(Verdict.LIVE, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 499, 1.0));
        assertEquals(Verdict.EXPIRED, ExpiryCheck.decide(expiry, VERSION, WRITTEN + 500, 1.0));
    }

    @Test
    void shouldTreatAnExpiryBeforeTheWriteAsExpired()
    {
        assertEquals(Verdict.EXPIRED, ExpiryCheck.decide(WRITTEN - 60_000, VERSION, WRITTEN, 1.1),
            "written already expired (a PUT with a past instant)");
    }

    /**
     * The guarantee itself, over random lives, drifts and node clock rates within the bound: whenever the reader says
     * LIVE the node's clock is before the expiry, whenever it says EXPIRED the node's is at or past it.
     */
    @Test
    void shouldNeverContradictANodeClockWithinTheDriftBound()
    {
        final Random random = new Random(32);
        for (int i = 0; i < 200_000; i++)
        {
            final double drift = 1.0 + random.nextDouble() * 0.5;
            final long life = 1 + random.nextInt(10_000_000);
            final long expiry = WRITTEN + life;
            final long sinceWrite = random.nextInt(20_000_000);
            // The node's clock rate against the reader's: anywhere in [1 / drift, drift].
            final double rate = 1 / drift + random.nextDouble() * (drift - 1 / drift);
            final double nodeNow = WRITTEN + sinceWrite * rate;
            final Verdict verdict = ExpiryCheck.decide(expiry, VERSION, WRITTEN + sinceWrite, drift);
            if (verdict == Verdict.LIVE)
            {
                assertNotEquals(true, nodeNow >= expiry, "LIVE while the node's clock is past the expiry: " + i);
            }
            else if (verdict == Verdict.EXPIRED)
            {
                assertNotEquals(true, nodeNow < expiry, "EXPIRED while the node's clock is before it: " + i);
            }
        }
    }
}

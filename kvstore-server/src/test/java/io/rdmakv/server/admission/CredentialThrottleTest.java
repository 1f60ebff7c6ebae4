package io.rdmakv.server.admission;

import org.junit.jupiter.api.Test;

import java.net.InetAddress;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CredentialThrottleTest
{
    private static final long SECOND = 1_000_000_000L;
    private static final long FOREVER = Long.MAX_VALUE;

    @Test
    void shouldLetABurstThroughThenOneCheckPerInterval() throws Exception
    {
        final InetAddress attacker = InetAddress.getByName("10.0.0.1");
        final CredentialThrottle throttle = new CredentialThrottle(3, SECOND, 100);
        long now = 1_000;
        for (int i = 0; i < 3; i++)
        {
            assertEquals(0, throttle.delayNanos(attacker, now, FOREVER));
            throttle.recordFailure(attacker, now);
        }
        // The fourth waits one interval, and each further one an interval more (a booked slot each).
        assertEquals(SECOND, throttle.delayNanos(attacker, now, FOREVER));
        assertEquals(2 * SECOND, throttle.delayNanos(attacker, now, FOREVER));
        // A wait past what the caller can wait is refused, and books nothing.
        assertEquals(CredentialThrottle.REFUSE, throttle.delayNanos(attacker, now, 2 * SECOND));
        assertEquals(3 * SECOND, throttle.delayNanos(attacker, now, FOREVER));
    }

    @Test
    void shouldBoundTheChecksOfAGuessingSourceToTheBurstPlusOnePerInterval() throws Exception
    {
        final InetAddress attacker = InetAddress.getByName("10.0.0.1");
        final InetAddress client = InetAddress.getByName("10.0.0.2");
        final CredentialThrottle throttle = new CredentialThrottle(10, SECOND, 100);
        final long deadline = 5 * SECOND;
        int checked = 0;
        // 84 wrong guesses a second (the rate measured without a throttle) for 60 s of the injected clock. A guess is
        // checked now (delay 0), or at its booked time (a delay within the deadline), or refused.
        for (long now = 0; now < 60 * SECOND; now += SECOND / 84)
        {
            final long delay = throttle.delayNanos(attacker, now, deadline);
            if (delay == 0)
            {
                throttle.recordFailure(attacker, now);
                checked++;
            }
            else if (delay > 0 && now + delay < 60 * SECOND)
            {
                checked++;
            }
            // The right credential from another address is checked at once throughout.
            assertEquals(0, throttle.delayNanos(client, now, deadline));
        }
        assertTrue(checked <= 10 + 60, "checked " + checked + " guesses in 60 s");
        assertTrue(checked >= 60, "the rate is 1/s after the burst, not less: " + checked);
    }

    @Test
    void shouldForgetTheLeastRecentlyFailedSourceBeyondItsTable() throws Exception
    {
        final CredentialThrottle throttle = new CredentialThrottle(1, SECOND, 2);
        throttle.recordFailure(InetAddress.getByName("10.0.0.1"), 0);
        throttle.recordFailure(InetAddress.getByName("10.0.0.2"), 0);
        throttle.recordFailure(InetAddress.getByName("10.0.0.3"), 0);
        assertEquals(2, throttle.sources());
        assertEquals(0, throttle.delayNanos(InetAddress.getByName("10.0.0.1"), 0, FOREVER));
        assertEquals(SECOND, throttle.delayNanos(InetAddress.getByName("10.0.0.3"), 0, FOREVER));
    }
}

package io.rdmakv.transport.tcp;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The event loop's duty timer: the interval while cycles find work, doubling while idle, bounded. */
class TcpProgressDriverTest
{
    private static final long INTERVAL = 1_000_000L;

    @Test
    void shouldBackOffWhileIdleUpToItsBoundAndReturnToTheIntervalAfterWork()
    {
        long wait = INTERVAL;
        final long[] expected = {2, 4, 8, 16, 32, 32, 32};
        for (final long multiple : expected)
        {
            wait = TcpProgressDriver.nextTimerNanos(wait, INTERVAL, false);
            assertEquals(multiple * INTERVAL, wait);
        }
        assertEquals(TcpProgressDriver.IDLE_BACKOFF_FACTOR * INTERVAL, wait, "bounded");
        assertEquals(INTERVAL, TcpProgressDriver.nextTimerNanos(wait, INTERVAL, true), "work: back to the interval");
    }
}

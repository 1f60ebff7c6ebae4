package io.rdmakv.transport.log;

import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class LogRateLimiterTest
{
    private final AtomicLong now = new AtomicLong(1_000);
    private final LogRateLimiter limiter = new LogRateLimiter(3, Duration.ofSeconds(10), now::get);

    @Test
    void shouldWriteABurstPerWindowAndCountTheRest()
    {
        assertEquals(0, limiter.acquire());
        assertEquals(0, limiter.acquire());
        assertEquals(0, limiter.acquire());
        for (int i = 0; i < 1000; i++)
        {
            assertEquals(LogRateLimiter.SUPPRESS, limiter.acquire());
        }
        now.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
        assertEquals(LogRateLimiter.SUPPRESS, limiter.acquire(), "still the first window");

        now.addAndGet(1);
        assertEquals(1001, limiter.acquire(), "the first line of the next window reports what was dropped");
        assertEquals(0, limiter.acquire());
        assertEquals(0, limiter.acquire());
        assertEquals(LogRateLimiter.SUPPRESS, limiter.acquire());
        assertEquals(1002, limiter.suppressedTotal());
    }

    @Test
    void shouldBoundTheLinesOfAnHourOfFloodingToTheWindows()
    {
        long written = 0;
        // One attempt every millisecond for an hour of the injected clock: 3,600,000 attempts.
        for (int i = 0; i < 3_600_000; i++)
        {
            if (limiter.acquire() != LogRateLimiter.SUPPRESS)
            {
                written++;
            }
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1));
        }
        assertEquals(3 * 360, written, "3 lines per 10 s window, 360 windows");
        assertEquals(3_600_000 - written, limiter.suppressedTotal());
    }

    @Test
    void shouldSayHowManyLinesASiteSuppressed()
    {
        final RateLimitedLog log = new RateLimitedLog(LoggerFactory.getLogger(LogRateLimiterTest.class), limiter);
        for (int i = 0; i < 10; i++)
        {
            log.warn("test line {} of a flood (expected in the test output: 3 of them)", i);
        }
        assertEquals(7, log.suppressedTotal());
    }

    @Test
    void shouldRefuseANonsensicalRate()
    {
        assertThrows(IllegalArgumentException.class, () -> new LogRateLimiter(0, Duration.ofSeconds(1), now::get));
        assertThrows(IllegalArgumentException.class, () -> new LogRateLimiter(1, Duration.ZERO, now::get));
    }
}

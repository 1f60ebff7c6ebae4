package io.rdmakv.pool.alloc;

import org.agrona.collections.LongArrayList;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class EpochReclaimerTest
{
    private static final long GRACE = 100;

    private final ManualNanoClock clock = new ManualNanoClock();
    private final EpochReclaimer reclaimer = new EpochReclaimer(GRACE, clock);
    private final LongArrayList released = new LongArrayList();

    @Test
    void shouldReleaseNothingBeforeTheGracePeriodAndInRetireOrderAfter()
    {
        reclaimer.retire(640);
        clock.advance(50);
        reclaimer.retire(128);
        final long firstExpiry = reclaimer.nextExpiryNanos();
        assertEquals(clock.nanoTime() - 50 + GRACE, firstExpiry);

        assertEquals(0, reclaimer.poll(clock.nanoTime() + 49, released::addLong));
        assertFalse(reclaimer.hasExpired(clock.nanoTime() + 49));
        assertTrue(released.isEmpty());

        assertEquals(1, reclaimer.poll(clock.nanoTime() + 50, released::addLong));
        assertEquals(640, released.getLong(0));
        assertEquals(1, reclaimer.pending());

        assertEquals(0, reclaimer.poll(clock.nanoTime() + 99, released::addLong));
        assertEquals(1, reclaimer.poll(clock.nanoTime() + 100, released::addLong));
        assertEquals(128, released.getLong(1));
        assertEquals(0, reclaimer.pending());
        assertEquals(Long.MAX_VALUE, reclaimer.nextExpiryNanos());
    }

    @Test
    void shouldKeepOrderWhenGrowingPastItsInitialCapacity()
    {
        for (int i = 0; i < 700; i++)
        {
            reclaimer.retire(i * 64L);
            clock.advance(1);
        }
        assertEquals(700, reclaimer.poll(clock.nanoTime() + GRACE, released::addLong)); // wrap the ring first
        for (int i = 0; i < 5000; i++)
        {
            reclaimer.retire(i * 64L);
            clock.advance(1);
        }
        assertEquals(5000, reclaimer.pending());
        assertEquals(5000, reclaimer.poll(clock.nanoTime() + GRACE, released::addLong));
        for (int i = 0; i < 5000; i++)
        {
            assertEquals(i * 64L, released.getLong(700 + i));
        }
    }

    @Test
    void shouldRejectANegativeGracePeriod()
    {
        assertThrows(IllegalArgumentException.class, () -> new EpochReclaimer(-1, clock));
    }
}

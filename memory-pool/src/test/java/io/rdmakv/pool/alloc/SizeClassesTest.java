package io.rdmakv.pool.alloc;

import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

class SizeClassesTest
{
    private final SizeClasses classes = new SizeClasses(SizeClasses.MAX_UNITS);

    @Test
    void shouldHaveIncreasingCacheLineMultiplesUpToTheIndexLimit()
    {
        int previous = 0;
        for (int c = 0; c < classes.classCount(); c++)
        {
            final int size = classes.sizeOfClass(c);
            assertTrue(size > previous, "class " + c);
            assertEquals(0, size % 64, "class " + c);
            previous = size;
        }
        assertEquals(SizeClasses.MAX_UNITS * 64, classes.maxBytes());
        assertTrue(classes.maxBytes() >= (1 << 20) + 1024 + 64, "a 1 MiB value + 1 KiB key + header must fit");
    }

    @Test
    void shouldRoundEveryRequestWithinTheStatedBound()
    {
        for (int r = 1; r <= classes.maxBytes(); r++)
        {
            final int cls = classes.classOf(r);
            final int granted = classes.sizeOfClass(cls);
            final int waste = granted - r;
            final boolean smallest = cls == 0 || classes.sizeOfClass(cls - 1) < r;
            final boolean withinBound = r <= 1024 ? waste < 64 : waste * 8L < r;
            if (granted < r || !smallest || !withinBound)
            {
                fail("request " + r + " granted " + granted + " (class " + cls + ")");
            }
        }
    }

    @Test
    void shouldWasteAtMostAnEighthOnSizesUniformFrom64BytesTo64KiB()
    {
        final SplittableRandom random = new SplittableRandom(42);
        long requested = 0;
        long granted = 0;
        for (int i = 0; i < 200_000; i++)
        {
            final int r = random.nextInt(64, 65536 + 1);
            requested += r;
            granted += classes.sizeOfClass(classes.classOf(r));
        }
        final double waste = (double)(granted - requested) / requested;
        assertTrue(waste <= 0.125, "waste " + waste);
    }

    @Test
    void shouldRejectSizesOutOfRange()
    {
        assertEquals(-1, classes.classOf(0));
        assertEquals(-1, classes.classOf(-5));
        assertEquals(-1, classes.classOf(classes.maxBytes() + 1));
        assertThrows(IllegalArgumentException.class, () -> new SizeClasses(0));
        assertThrows(IllegalArgumentException.class, () -> new SizeClasses(SizeClasses.MAX_UNITS + 1));
    }

    @Test
    void shouldClipTheLastClassToASmallerLimit()
    {
        final SizeClasses small = new SizeClasses(1000);
        assertEquals(1000 * 64, small.maxBytes());
        assertEquals(small.classCount() - 1, small.classOf(1000 * 64));
    }
}

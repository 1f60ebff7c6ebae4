package io.rdmakv.server.store;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Data versions rise strictly on one node, whatever its clock does, stay above what it observed, and differ by node. */
class DataVersionsTest
{
    @Test
    void shouldRiseStrictlyWithAStoppedOrBackwardClock()
    {
        final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
        final DataVersions versions = new DataVersions(7, clock::get);
        long last = 0;
        for (int i = 0; i < 10_000; i++) // more than 4,096 in one ms: borrows from the next ms
        {
            final long v = versions.next();
            assertTrue(v > last, "strictly rising at " + i);
            assertEquals(7, v & 0xFF, "the node's bits");
            last = v;
        }
        clock.addAndGet(-60_000); // the wall clock steps back a minute
        assertTrue(versions.next() > last);
    }

    @Test
    void shouldIssueAboveWhatItObservedAndApartFromOtherNodes()
    {
        final AtomicLong clock = new AtomicLong(1_700_000_000_000L);
        final DataVersions primary = new DataVersions(1, clock::get);
        final DataVersions backup = new DataVersions(2, () -> clock.get() - 5_000); // its clock 5 s behind
        final long written = primary.next();
        backup.observe(written); // applied as a replica
        final long promoted = backup.next();
        assertTrue(promoted > written, "a promoted backup versions above what it applied");
        assertEquals(2, promoted & 0xFF);
        assertNotEquals(primary.next(), backup.next(), "two nodes never issue the same number");
        assertEquals(clock.get(), DataVersions.millisOf(new DataVersions(3, clock::get).next()));
    }
}

package io.rdmakv.transport.verbs;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The snapshot's arithmetic: windows, sums, ratios (0 where nothing was counted) and the names it is exported by. */
class VerbsCountersTest
{
    private static final VerbsCounters EARLIER = new VerbsCounters(10, 6, 8, 2, 9, 40, 5, 100, 20, 30, 4);
    private static final VerbsCounters LATER = new VerbsCounters(30, 36, 18, 4, 29, 80, 9, 300, 40, 90, 4);

    @Test
    void shouldGiveAWindowsCountsAndRatios()
    {
        final VerbsCounters w = LATER.minus(EARLIER);
        assertEquals(new VerbsCounters(20, 30, 10, 2, 20, 40, 4, 200, 20, 60, 0), w);
        assertEquals(5.0, w.postsPerDoorbell(), 1e-12);
        assertEquals(0.1, w.signaledShare(), 1e-12);
        assertEquals(1.0, w.inlineShare(), 1e-12);
        assertEquals(10.0, w.recvsPerDoorbell(), 1e-12);
        assertEquals(3.0, w.completionsPerPoll(), 1e-12, "per poll that returned any, not per empty poll");
        assertEquals(LATER, EARLIER.plus(w));
    }

    @Test
    void shouldGiveZeroRatiosWhereNothingWasCounted()
    {
        final VerbsCounters zero = VerbsCounters.ZERO;
        assertEquals(0.0, zero.postsPerDoorbell());
        assertEquals(0.0, zero.signaledShare());
        assertEquals(0.0, zero.inlineShare());
        assertEquals(0.0, zero.recvsPerDoorbell());
        assertEquals(0.0, zero.completionsPerPoll());
    }

    @Test
    void shouldExportEveryCountAndRatioByNameInAStableOrder()
    {
        final Map<String, Number> m = LATER.toMap();
        assertEquals(List.of("verbs.sends", "verbs.reads", "verbs.sendDoorbells", "verbs.signaledSends",
            "verbs.inlineSends", "verbs.recvs", "verbs.recvDoorbells", "verbs.polls", "verbs.busyPolls",
            "verbs.completions", "verbs.systemCalls", "verbs.postsPerDoorbell", "verbs.recvsPerDoorbell",
            "verbs.signaledShare", "verbs.inlineShare", "verbs.completionsPerPoll"), List.copyOf(m.keySet()));
        assertEquals(36L, m.get("verbs.reads"));
        assertEquals(LATER.postsPerDoorbell(), m.get("verbs.postsPerDoorbell"));
    }
}

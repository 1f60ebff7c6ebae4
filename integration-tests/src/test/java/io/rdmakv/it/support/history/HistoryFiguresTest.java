package io.rdmakv.it.support.history;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;

class HistoryFiguresTest
{
    private static final long MS = 1_000_000;

    private final AtomicLong clock = new AtomicLong();
    private final HistoryRecorder recorder = new HistoryRecorder(clock::get);

    @Test
    void shouldTimeOnlyAnsweredOperationsWithNearestRankPercentiles()
    {
        // 100 answered calls taking 1..100 ms, one timed out, one refused.
        for (int i = 1; i <= 100; i++)
        {
            clock.set(0);
            final int op = i % 2 == 0 ? recorder.invokePut(1, "k", "v" + i) : recorder.invokeGet(2, "k");
            clock.set(i * MS);
            if (i % 2 == 0)
            {
                recorder.ok(op);
            }
            else
            {
                recorder.okRead(op, null);
            }
        }
        recorder.timeout(recorder.invokeGet(3, "k"));
        recorder.fail(recorder.invokePut(3, "k", "never"));

        final HistoryFigures figures = HistoryFigures.of(recorder.history());

        assertEquals(new HistoryFigures(102, 100, 2, 50.0, 99.0, 100.0), figures);
        assertEquals("100 of 102 operations answered (2 failed or timed out); answered in p50 50.0 ms, p99 99.0 ms, " +
            "max 100.0 ms", figures.toString());
    }

    @Test
    void shouldReportZeroLatenciesWhenNothingWasAnswered()
    {
        recorder.timeout(recorder.invokePut(1, "k", "v"));

        assertEquals(new HistoryFigures(1, 0, 1, 0, 0, 0), HistoryFigures.of(recorder.history()));
        assertEquals(new HistoryFigures(0, 0, 0, 0, 0, 0), HistoryFigures.of(List.of()));
    }
}

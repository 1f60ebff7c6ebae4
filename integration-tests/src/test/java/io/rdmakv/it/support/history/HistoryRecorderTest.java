package io.rdmakv.it.support.history;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class HistoryRecorderTest
{
    private final AtomicLong clock = new AtomicLong();
    private final HistoryRecorder recorder = new HistoryRecorder(() -> clock.addAndGet(10));

    @Test
    void shouldRecordInvocationAndCompletionTimesFromItsClock()
    {
        final int put = recorder.invokePut(1, "k", "v");
        final int get = recorder.invokeGet(2, "k");
        recorder.ok(put);
        recorder.okRead(get, "v");
        final List<Operation> history = recorder.history();
        assertEquals(new Operation(0, 1, Operation.Kind.PUT, "k", "v", Operation.Outcome.OK, 10, 30), history.get(0));
        assertEquals(new Operation(1, 2, Operation.Kind.GET, "k", "v", Operation.Outcome.OK, 20, 40), history.get(1));
    }

    @Test
    void shouldReportOpenOperationsAsTimeoutsAndKeepFailures()
    {
        recorder.invokeDelete(1, "k");
        final int put = recorder.invokePut(2, "k", "v");
        recorder.fail(put);
        final int get = recorder.invokeGet(3, "k");
        recorder.timeout(get);
        final List<Operation> history = recorder.history();
        assertEquals(Operation.Outcome.TIMEOUT, history.get(0).outcome());
        assertEquals(Long.MAX_VALUE, history.get(0).completeNanos());
        assertEquals(Operation.Outcome.FAIL, history.get(1).outcome());
        assertEquals(30, history.get(1).completeNanos());
        assertEquals(Operation.Outcome.TIMEOUT, history.get(2).outcome());
        assertNull(history.get(2).value());
        assertEquals(3, recorder.size());
    }

    @Test
    void shouldRefuseASecondCompletionAndAReadValueForAWrite()
    {
        final int put = recorder.invokePut(1, "k", "v");
        assertThrows(IllegalArgumentException.class, () -> recorder.okRead(put, "v"));
        recorder.ok(put);
        assertThrows(IllegalStateException.class, () -> recorder.timeout(put));
        final int get = recorder.invokeGet(1, "k");
        assertThrows(IllegalArgumentException.class, () -> recorder.ok(get));
        assertThrows(IllegalArgumentException.class, () -> recorder.invokeGet(1, null));
    }
}

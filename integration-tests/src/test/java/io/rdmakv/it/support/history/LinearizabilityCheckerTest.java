package io.rdmakv.it.support.history;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Known linearizable and non-linearizable register histories, with times written out. */
class LinearizabilityCheckerTest
{
    private static final long NEVER = Long.MAX_VALUE;

    private final List<Operation> h = new ArrayList<>();
    private final LinearizabilityChecker checker = new LinearizabilityChecker();

    @Test
    void shouldAcceptSequentialPutsGetsAndDeletes()
    {
        get("k", null, 0, 1);
        put("k", "1", 2, 3);
        get("k", "1", 4, 5);
        delete("k", 6, 7);
        get("k", null, 8, 9);
        put("k", "2", 10, 11);
        get("k", "2", 12, 13);
        checker.check(h).assertLinearizable();
    }

    @Test
    void shouldNameAStaleReadOfAValueOverwrittenBeforeTheReadBegan()
    {
        put("k", "1", 0, 10);
        put("k", "2", 20, 30);
        final Operation stale = get("k", "1", 40, 50);
        get("k", "2", 60, 70);
        final Anomaly a = firstAnomaly();
        assertEquals(Anomaly.Kind.STALE_READ, a.kind());
        assertEquals(stale, a.read());
        assertEquals("2", a.overwritten().value());
    }

    @Test
    void shouldNameALostAcknowledgedWrite()
    {
        put("k", "1", 0, 10);
        final Operation lost = put("k", "2", 20, 30);
        get("k", "1", 40, 50);
        get("k", "1", 60, 70);
        final Anomaly a = firstAnomaly();
        assertEquals(Anomaly.Kind.LOST_WRITE, a.kind());
        assertEquals(lost, a.overwritten());
    }

    @Test
    void shouldNameALostFirstWriteReadAsAbsent()
    {
        put("k", "1", 0, 10);
        get("k", null, 20, 30);
        assertEquals(Anomaly.Kind.LOST_WRITE, firstAnomaly().kind());
    }

    @Test
    void shouldNameAStaleReadAfterAnAcknowledgedDelete()
    {
        put("k", "1", 0, 10);
        delete("k", 20, 30);
        get("k", "1", 40, 50);
        assertEquals(Anomaly.Kind.STALE_READ, firstAnomaly().kind());
    }

    @Test
    void shouldAcceptDeletesAnsweredAsTheRegisterWas()
    {
        put("k", "1", 0, 10);
        deleteAnswered("k", true, 20, 30);
        deleteAnswered("k", false, 40, 50);
        get("k", null, 60, 70);
        checker.check(h).assertLinearizable();
    }

    /** A retried DELETE answered "absent" although its first attempt deleted the key (issue 31). */
    @Test
    void shouldRefuseADeleteAnsweredAbsentWhileTheKeyWasPresent()
    {
        put("k", "1", 0, 10);
        deleteAnswered("k", false, 20, 30);
        get("k", null, 40, 50);
        assertEquals(Anomaly.Kind.NOT_LINEARIZABLE, firstAnomaly().kind());
    }

    @Test
    void shouldRefuseTwoConcurrentDeletesThatBothFoundTheKey()
    {
        put("k", "1", 0, 10);
        deleteAnswered("k", true, 20, 40);
        deleteAnswered("k", true, 25, 45);
        assertFalse(checker.check(h).linearizable());
        // With a PUT between them both may have found it.
        put("k", "2", 22, 42);
        checker.check(h).assertLinearizable();
    }

    @Test
    void shouldAcceptEitherOrderOfConcurrentOverlappingWrites()
    {
        put("k", "1", 0, 100);
        put("k", "2", 10, 90);
        get("k", "1", 110, 120);
        checker.check(h).assertLinearizable();

        h.clear();
        put("k", "1", 0, 100);
        put("k", "2", 10, 90);
        get("k", "2", 110, 120);
        checker.check(h).assertLinearizable();

        h.clear();
        put("k", "1", 0, 100);
        put("k", "2", 10, 90);
        get("k", "2", 20, 30);
        get("k", "1", 40, 50);
        checker.check(h).assertLinearizable();
    }

    @Test
    void shouldRefuseReadsThatSeeConcurrentWritesInTwoOrders()
    {
        put("k", "1", 0, 100);
        put("k", "2", 10, 90);
        get("k", "1", 20, 30);
        get("k", "2", 40, 50);
        get("k", "1", 60, 70);
        final LinearizabilityChecker.Report report = checker.check(h);
        assertFalse(report.linearizable());
        assertEquals(1, report.anomalies().size());
        assertEquals(Anomaly.Kind.NOT_LINEARIZABLE, report.firstAnomaly().kind());
        assertNotNull(report.firstAnomaly().read());
    }

    @Test
    void shouldAcceptATimedOutWriteThatTookEffectLate()
    {
        put("k", "1", 0, 10);
        timedOutPut("k", "2", 20);
        get("k", "1", 30, 40);
        get("k", "2", 1_000, 1_010);
        get("k", "2", 2_000, 2_010);
        checker.check(h).assertLinearizable();
    }

    @Test
    void shouldAcceptATimedOutWriteThatNeverTookEffect()
    {
        put("k", "1", 0, 10);
        timedOutPut("k", "2", 20);
        get("k", "1", 30, 40);
        get("k", "1", 1_000, 1_010);
        timedOutDelete("k", 1_100);
        get("k", "1", 2_000, 2_010);
        checker.check(h).assertLinearizable();
    }

    @Test
    void shouldRefuseATimedOutWriteSeenAndThenUnseen()
    {
        put("k", "1", 0, 10);
        timedOutPut("k", "2", 20);
        get("k", "2", 30, 40);
        get("k", "1", 50, 60);
        final LinearizabilityChecker.Report report = checker.check(h);
        assertEquals(Anomaly.Kind.NOT_LINEARIZABLE, report.firstAnomaly().kind());
    }

    @Test
    void shouldNameAValueNeverWrittenAndAValueOnlyAFailedPutWrote()
    {
        put("k", "1", 0, 10);
        get("k", "garbage", 20, 30);
        assertEquals(Anomaly.Kind.VALUE_NEVER_WRITTEN, firstAnomaly().kind());

        h.clear();
        put("k", "1", 0, 10);
        failedPut("k", "2", 20, 30);
        get("k", "2", 40, 50);
        assertEquals(Anomaly.Kind.VALUE_NEVER_WRITTEN, firstAnomaly().kind());
    }

    @Test
    void shouldNotLetAReadSeeAWriteInvokedAfterTheReadCompleted()
    {
        get("k", "1", 0, 10);
        put("k", "1", 20, 30);
        assertEquals(Anomaly.Kind.VALUE_NEVER_WRITTEN, firstAnomaly().kind());
    }

    @Test
    void shouldCheckKeysIndependentlyAndReportTheEarliestAnomaly()
    {
        put("a", "1", 0, 10);
        put("b", "1", 0, 10);
        put("b", "2", 20, 30);
        get("b", "1", 40, 50);
        get("a", "1", 40, 50);
        put("c", "1", 0, 10);
        get("c", "x", 35, 45);
        final LinearizabilityChecker.Report report = checker.check(h);
        assertEquals(3, report.keys());
        assertEquals(2, report.anomalies().size());
        assertEquals("c", report.firstAnomaly().key());
        assertEquals(1, report.count(Anomaly.Kind.LOST_WRITE));
        assertEquals(1, report.count(Anomaly.Kind.VALUE_NEVER_WRITTEN));
    }

    @Test
    void shouldSayUnknownWhenTheStepBudgetRunsOut()
    {
        for (int i = 0; i < 8; i++)
        {
            put("k", "v" + i, i, 100 + i);
        }
        get("k", "v3", 200, 210);
        final LinearizabilityChecker.Report report = new LinearizabilityChecker(3).check(h);
        assertFalse(report.linearizable());
        assertEquals(List.of("k"), report.unknownKeys());
        assertNull(report.firstAnomaly());
        assertThrows(AssertionError.class, report::assertLinearizable);
        new LinearizabilityChecker().check(h).assertLinearizable();
    }

    @Test
    void shouldAcceptLongConcurrentHistoriesOfALinearizableRegisterAndRefuseOneStaleRead()
    {
        final Random random = new Random(42);
        // One register whose operations take effect at distinct points; each interval straddles its point.
        String value = null;
        final List<Operation> ops = new ArrayList<>();
        final List<Integer> staleCandidates = new ArrayList<>();
        final List<String> written = new ArrayList<>();
        for (int i = 0; i < 3_000; i++)
        {
            final long point = 1_000L * (i + 1);
            final long invoke = point - 1 - random.nextInt(2_500);
            final long complete = point + 1 + random.nextInt(2_500);
            final int r = random.nextInt(10);
            if (r < 4)
            {
                value = "v" + i;
                written.add(value);
                ops.add(new Operation(ops.size(), i % 6, Operation.Kind.PUT, "k", value, Operation.Outcome.OK, invoke,
                    complete));
            }
            else
            {
                if (written.size() > 3 && complete < point + 200)
                {
                    staleCandidates.add(ops.size());
                }
                ops.add(new Operation(ops.size(), i % 6, Operation.Kind.GET, "k", value, Operation.Outcome.OK, invoke,
                    complete));
            }
        }
        final List<Operation> perKey = ops;
        final LinearizabilityChecker.Report good = checker.check(perKey);
        good.assertLinearizable();
        assertTrue(good.steps() >= perKey.size(), "every operation placed at least once: " + good);

        // The same history with one read answering the value of a write acknowledged long before, then overwritten.
        final Operation first = perKey.stream().filter(o -> o.kind() == Operation.Kind.PUT).findFirst().orElseThrow();
        final int victim = staleCandidates.get(staleCandidates.size() / 2);
        final Operation old = perKey.get(victim);
        perKey.set(victim, new Operation(old.id(), old.process(), old.kind(), "k", first.value(), old.outcome(),
            old.invokeNanos(), old.completeNanos()));
        final LinearizabilityChecker.Report bad = checker.check(perKey);
        assertFalse(bad.linearizable());
        assertEquals(Anomaly.Kind.STALE_READ, bad.firstAnomaly().kind(), bad.toString());
        assertEquals(old.id(), bad.firstAnomaly().read().id());
    }

    @Test
    void shouldAcceptCompareAndSetsDecidedOnTheValueTheirVersionNames()
    {
        conditional(Operation.Kind.PUT_IF_ABSENT, "k", null, "1", true, 0, 1);
        conditional(Operation.Kind.PUT_IF_ABSENT, "k", null, "2", false, 2, 3);
        conditional(Operation.Kind.REPLACE, "k", "1", "3", true, 4, 5);
        conditional(Operation.Kind.REPLACE, "k", "1", "4", false, 6, 7);
        get("k", "3", 8, 9);
        conditional(Operation.Kind.DELETE_IF, "k", "1", null, false, 10, 11);
        conditional(Operation.Kind.DELETE_IF, "k", "3", null, true, 12, 13);
        get("k", null, 14, 15);
        checker.check(h).assertLinearizable();
    }

    @Test
    void shouldRefuseTwoConcurrentReplacesOfOneVersionBothApplied()
    {
        put("k", "1", 0, 1);
        conditional(Operation.Kind.REPLACE, "k", "1", "2", true, 10, 20);
        conditional(Operation.Kind.REPLACE, "k", "1", "3", true, 11, 21);
        assertFalse(checker.check(h).linearizable(), "a compare-and-set applied twice on one version: a lost update");
    }

    @Test
    void shouldRefuseTwoPutIfAbsentsBothApplied()
    {
        conditional(Operation.Kind.PUT_IF_ABSENT, "k", null, "1", true, 0, 10);
        conditional(Operation.Kind.PUT_IF_ABSENT, "k", null, "2", true, 5, 15);
        assertFalse(checker.check(h).linearizable());
    }

    @Test
    void shouldRefuseARefusalWhileTheExpectedValueWasSurelyThere()
    {
        put("k", "1", 0, 1);
        conditional(Operation.Kind.REPLACE, "k", "1", "2", false, 2, 3);
        assertFalse(checker.check(h).linearizable(), "refused though the register held the expected value");
        h.clear();
        put("k", "1", 0, 1);
        conditional(Operation.Kind.DELETE_IF, "k", "1", null, false, 2, 3);
        assertFalse(checker.check(h).linearizable());
    }

    @Test
    void shouldLetATimedOutConditionalWriteExplainARefusal()
    {
        put("k", "1", 0, 1);
        add(Operation.Kind.REPLACE, "k", "2", "1", null, Operation.Outcome.TIMEOUT, 2, NEVER);
        conditional(Operation.Kind.REPLACE, "k", "1", "3", false, 10, 11);
        checker.check(h).assertLinearizable();
    }

    @Test
    void shouldKeepATimedOutPutThatExplainsARefusalThoughNoReadSawIt()
    {
        put("k", "1", 0, 1);
        timedOutPut("k", "2", 2);
        conditional(Operation.Kind.REPLACE, "k", "1", "3", false, 10, 11);
        checker.check(h).assertLinearizable();
    }

    @Test
    void shouldCheckIncrementsAgainstTheValuesTheyAnswered()
    {
        increment("n", 1, "1", 0, 1);
        increment("n", 5, "6", 2, 3);
        get("n", "6", 4, 5);
        add(Operation.Kind.INCREMENT, "n", null, "1", null, Operation.Outcome.TIMEOUT, 6, NEVER);
        increment("n", 1, "8", 10, 11);
        checker.check(h).assertLinearizable();
        h.clear();
        increment("n", 1, "1", 0, 10);
        increment("n", 1, "1", 5, 15);
        assertFalse(checker.check(h).linearizable(), "two increments answered the same value: one was lost");
        h.clear();
        increment("n", 1, "1", 0, 1);
        increment("n", 1, "3", 2, 3);
        assertFalse(checker.check(h).linearizable(), "an increment applied twice (a retry applied again)");
    }

    private Anomaly firstAnomaly()
    {
        final LinearizabilityChecker.Report report = checker.check(h);
        assertFalse(report.linearizable(), "expected an anomaly");
        assertEquals(1, report.anomalies().size(), report.toString());
        return report.firstAnomaly();
    }

    private Operation put(final String key, final String value, final long invoke, final long complete)
    {
        return add(Operation.Kind.PUT, key, value, Operation.Outcome.OK, invoke, complete);
    }

    private Operation get(final String key, final String value, final long invoke, final long complete)
    {
        return add(Operation.Kind.GET, key, value, Operation.Outcome.OK, invoke, complete);
    }

    private Operation delete(final String key, final long invoke, final long complete)
    {
        return add(Operation.Kind.DELETE, key, null, Operation.Outcome.OK, invoke, complete);
    }

    private Operation deleteAnswered(final String key, final boolean found, final long invoke, final long complete)
    {
        return add(Operation.Kind.DELETE, key, found ? Operation.DELETE_FOUND : Operation.DELETE_ABSENT,
            Operation.Outcome.OK, invoke, complete);
    }

    private void timedOutPut(final String key, final String value, final long invoke)
    {
        add(Operation.Kind.PUT, key, value, Operation.Outcome.TIMEOUT, invoke, NEVER);
    }

    private void timedOutDelete(final String key, final long invoke)
    {
        add(Operation.Kind.DELETE, key, null, Operation.Outcome.TIMEOUT, invoke, NEVER);
    }

    private void failedPut(final String key, final String value, final long invoke, final long complete)
    {
        add(Operation.Kind.PUT, key, value, Operation.Outcome.FAIL, invoke, complete);
    }

    private Operation conditional(final Operation.Kind kind, final String key, final String expected,
        final String value, final boolean applied, final long invoke, final long complete)
    {
        return add(kind, key, value, expected, applied, Operation.Outcome.OK, invoke, complete);
    }

    private Operation increment(final String key, final long delta, final String answered, final long invoke,
        final long complete)
    {
        return add(Operation.Kind.INCREMENT, key, answered, Long.toString(delta), null, Operation.Outcome.OK, invoke,
            complete);
    }

    private Operation add(final Operation.Kind kind, final String key, final String value, final String expected,
        final Boolean applied, final Operation.Outcome outcome, final long invoke, final long complete)
    {
        final Operation op = new Operation(h.size(), h.size(), kind, key, value, outcome, invoke, complete, expected,
            applied);
        h.add(op);
        return op;
    }

    private Operation add(final Operation.Kind kind, final String key, final String value, final Operation.Outcome outcome,
        final long invoke, final long complete)
    {
        final Operation op = new Operation(h.size(), h.size(), kind, key, value, outcome, invoke, complete);
        h.add(op);
        return op;
    }
}

package io.rdmakv.cli.bench;

import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkloadTest
{
    @Test
    void shouldKnowTheYcsbCoreWorkloads()
    {
        assertEquals(new Workload("A", 50, 50, 0, false), Workload.parse("a"));
        assertEquals(new Workload("B", 95, 5, 0, false), Workload.parse("B"));
        assertEquals(new Workload("C", 100, 0, 0, false), Workload.parse("c"));
        final Workload d = Workload.parse("D");
        assertEquals(5, d.insertPercent());
        assertTrue(d.readLatest());
    }

    @Test
    void shouldParseCustomMixesAndPickByPercentile()
    {
        final Workload w = Workload.parse("get=70, put=20, insert=10");
        assertEquals(OpType.GET, w.pick(0));
        assertEquals(OpType.GET, w.pick(69));
        assertEquals(OpType.PUT, w.pick(70));
        assertEquals(OpType.PUT, w.pick(89));
        assertEquals(OpType.INSERT, w.pick(90));
        assertEquals(OpType.INSERT, w.pick(99));
        assertFalse(w.readLatest());
    }

    @Test
    void shouldRejectBadMixesWithAReason()
    {
        assertTrue(assertThrows(BenchException.class, () -> Workload.parse("get=90,put=20")).getMessage()
            .contains("summing to 100"));
        assertTrue(assertThrows(BenchException.class, () -> Workload.parse("E")).getMessage()
            .contains("unknown workload"));
        assertTrue(assertThrows(BenchException.class, () -> Workload.parse("get=x,put=100")).getMessage()
            .contains("bad mix entry"));
        assertTrue(assertThrows(BenchException.class, () -> Workload.parse("scan=100")).getMessage()
            .contains("unknown operation"));
    }

    @Test
    void shouldParseDurationsAndRejectNonsense()
    {
        assertEquals(Duration.ofSeconds(10), BenchCommand.parseDuration("10s", "--duration"));
        assertEquals(Duration.ofMillis(500), BenchCommand.parseDuration("500ms", "--duration"));
        assertEquals(Duration.ofMinutes(2), BenchCommand.parseDuration("2m", "--duration"));
        assertEquals(Duration.ofMillis(1500), BenchCommand.parseDuration("1.5", "--duration"));
        assertThrows(BenchException.class, () -> BenchCommand.parseDuration("soon", "--duration"));
        assertThrows(BenchException.class, () -> BenchCommand.parseDuration("-3s", "--duration"));
    }

    @Test
    void shouldMakeFixedSizeAsciiKeysAndRefuseTooShortOnes()
    {
        final KeySpace keys = new KeySpace(8, 4, 999);
        assertArrayEquals("k0000042".getBytes(java.nio.charset.StandardCharsets.US_ASCII), keys.key(42));
        assertEquals(4, keys.value(3).length);
        assertThrows(BenchException.class, () -> new KeySpace(3, 4, 999));
    }
}

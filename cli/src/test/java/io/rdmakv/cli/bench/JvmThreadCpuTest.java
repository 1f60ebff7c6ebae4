package io.rdmakv.cli.bench;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JvmThreadCpuTest
{
    @Test
    void shouldTellTheJvmsServiceThreadsFromTheApplicationsByTheirProcNames()
    {
        assertTrue(JvmThreadCpu.isService("C2 CompilerThre"));
        assertTrue(JvmThreadCpu.isService("C1 CompilerThre"));
        assertTrue(JvmThreadCpu.isService("GC Thread#1"));
        assertTrue(JvmThreadCpu.isService("G1 Conc#0"));
        assertTrue(JvmThreadCpu.isService("VM Thread"));
        assertFalse(JvmThreadCpu.isService("rdmakv-bench-0"));
        assertFalse(JvmThreadCpu.isService("rdmakv-tcp-io-1"));
        assertFalse(JvmThreadCpu.isService("java"));
    }

    @Test
    void shouldCountThreadsInBothSnapshotsByDifferenceAndNewThreadsWhole()
    {
        final Map<Long, Long> before = Map.of(1L, 100L, 2L, 50L, 3L, 7L);
        final Map<Long, Long> after = Map.of(1L, 130L, 2L, 50L, 4L, 5L); // 3 ended, 4 started
        assertEquals((30 + 0 + 5) * 10_000_000L, JvmThreadCpu.nanosBetween(before, after, 100));
    }

    @Test
    void shouldFindThisJvmsServiceThreadsOnLinux()
    {
        final Map<Long, Long> now = JvmThreadCpu.snapshot();
        // Every HotSpot JVM runs a VM thread and at least one GC thread; values are ticks so far, never negative.
        assertFalse(now.isEmpty());
        now.values().forEach(ticks -> assertTrue(ticks >= 0));
    }
}

package io.rdmakv.cli.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ProcessCpuTimeTest
{
    @Test
    @Timeout(60)
    void shouldCountThisProcessesCpuTimeGrowingWhileItSpins() throws IOException
    {
        final long pid = ProcessHandle.current().pid();
        final long before = ProcessCpuTime.ticks(pid);
        // Burn half a second of this thread's CPU (thread CPU time, so a loaded machine only makes it take longer):
        // at 100 ticks a second that is about 50 ticks, far more than the one a rounding could lose.
        final java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        final long cpuStart = threads.getCurrentThreadCpuTime();
        long sink = 0;
        while (threads.getCurrentThreadCpuTime() - cpuStart < 500_000_000L)
        {
            for (int i = 0; i < 100_000; i++)
            {
                sink += i ^ sink;
            }
        }
        final long after = ProcessCpuTime.ticks(pid);
        assertTrue(after - before >= 10, "the process was charged for the spin: " + before + " -> " + after +
            " ticks (" + sink + ")");
    }

    @Test
    void shouldFailClearlyForAProcessThatDoesNotExist()
    {
        final IOException ex = assertThrows(IOException.class, () -> ProcessCpuTime.ticks(Integer.MAX_VALUE));
        assertTrue(ex.getMessage().contains(Integer.toString(Integer.MAX_VALUE)), ex.getMessage());
    }

    @Test
    void shouldKnowTheClockTickRate()
    {
        assertTrue(ProcessCpuTime.ticksPerSecond() > 0);
    }
}

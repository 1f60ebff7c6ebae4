package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;

/**
 * {@code process_cpu_seconds_total}, the name Prometheus' own clients give the CPU time a process used (Micrometer's
 * {@code process.cpu.time} is in nanoseconds and is not exported). Absent on a JVM that does not report it.
 */
final class ProcessCpu
{
    private ProcessCpu()
    {
    }

    static void bindTo(final MeterRegistry registry)
    {
        final OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean sun && sun.getProcessCpuTime() >= 0)
        {
            FunctionCounter.builder("process.cpu.seconds", sun, b -> b.getProcessCpuTime() / 1e9)
                .description("CPU time the node's process used, user and system, in seconds")
                .register(registry);
        }
    }
}

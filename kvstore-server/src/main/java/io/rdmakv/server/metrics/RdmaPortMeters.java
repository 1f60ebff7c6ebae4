package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmakv.transport.device.InfinibandSysfs;
import io.rdmakv.transport.device.RdmaDevice;
import io.rdmakv.transport.device.RdmaPort;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The RDMA ports' own counters, the ones {@code rdmakv doctor} reads from sysfs ({@code counters/} and
 * {@code hw_counters/} of each port), re-read from their files at every scrape, so a network problem (symbol errors,
 * retries, RNR NAKs, drops) shows beside the program's own counters:
 * {@code rdmakv_rdma_port_counter_total{device,port,group=counters|hw_counters,counter}}. A host without RDMA
 * devices exports none (absent, not zero).
 */
public final class RdmaPortMeters
{
    /** The files bound, held strongly (Micrometer's function counters reference their object weakly). */
    private static final java.util.Set<Path> RETAINED = java.util.concurrent.ConcurrentHashMap.newKeySet();

    private RdmaPortMeters()
    {
    }

    /** @return the number of counters bound. */
    public static int bind(final MeterRegistry registry, final Path sysfsRoot)
    {
        final List<RdmaDevice> devices;
        try
        {
            devices = new InfinibandSysfs(sysfsRoot).devices();
        }
        catch (final RuntimeException ex)
        {
            return 0;
        }
        int bound = 0;
        for (final RdmaDevice device : devices)
        {
            for (final RdmaPort port : device.ports())
            {
                final Path dir = sysfsRoot.resolve(device.name()).resolve("ports").resolve(Integer.toString(port.number()));
                bound += bindGroup(registry, device.name(), port.number(), dir, "counters", port.counters().keySet());
                bound += bindGroup(registry, device.name(), port.number(), dir, "hw_counters",
                    port.hwCounters().keySet());
            }
        }
        return bound;
    }

    private static int bindGroup(final MeterRegistry registry, final String device, final int port, final Path portDir,
        final String group, final Iterable<String> names)
    {
        int bound = 0;
        for (final String name : names)
        {
            final Path file = portDir.resolve(group).resolve(name);
            RETAINED.add(file); // a function counter holds its object weakly: keep the path alive
            FunctionCounter.builder("rdmakv.rdma.port.counter", file, RdmaPortMeters::read)
                .description("An RDMA port counter from sysfs (counters/: IB PortCounters; hw_counters/: the driver's)")
                .tags("device", device, "port", Integer.toString(port), "group", group, "counter", name)
                .register(registry);
            bound++;
        }
        return bound;
    }

    /** The file's number; NaN (no sample) when it cannot be read any more. */
    static double read(final Path file)
    {
        try
        {
            return Long.parseLong(Files.readString(file).trim());
        }
        catch (final IOException | NumberFormatException ex)
        {
            return Double.NaN;
        }
    }
}

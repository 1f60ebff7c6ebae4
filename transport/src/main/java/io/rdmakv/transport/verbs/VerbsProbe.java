package io.rdmakv.transport.verbs;

import io.rdmakv.transport.verbs.ffi.LibIbverbs;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

/**
 * Decides whether verbs can be used here, in the manner of Netty's {@code Epoll.ensureAvailability()}: each reason
 * it may not is a distinct, readable cause an operator can act on. The checks run cheapest first and stop at the
 * first failure: the property, the library, {@code /dev/infiniband}, a device, an ACTIVE port.
 */
public final class VerbsProbe
{
    /** What the probe looks at; the real one asks the machine, tests may describe another machine. */
    public interface Environment
    {
        boolean disabledByProperty();

        /** Why libibverbs could not be loaded, or {@code null} when it was. */
        Throwable libraryFailure();

        boolean deviceDirectoryExists();

        /** Devices and their port states; only called when the library loaded and the directory exists. */
        List<DeviceSummary> devices();
    }

    public static final String DEVICE_DIRECTORY = "/dev/infiniband";

    private VerbsProbe()
    {
    }

    /** The cause verbs is unusable on this machine, or {@code null} when it is usable. */
    public static String probe()
    {
        return probe(new Environment()
        {
            @Override
            public boolean disabledByProperty()
            {
                return io.rdmakv.transport.TransportProvider.isDisabledByProperty(VerbsTransportProvider.NAME);
            }

            @Override
            public Throwable libraryFailure()
            {
                return LibIbverbs.loadFailure();
            }

            @Override
            public boolean deviceDirectoryExists()
            {
                return Files.isDirectory(Path.of(DEVICE_DIRECTORY));
            }

            @Override
            public List<DeviceSummary> devices()
            {
                return VerbsDevice.survey();
            }
        });
    }

    /** The decision itself, over any {@link Environment}. */
    public static String probe(final Environment env)
    {
        if (env.disabledByProperty())
        {
            return "verbs disabled by -Drdmakv.transport.verbs.disabled=true";
        }
        final Throwable libraryFailure = env.libraryFailure();
        if (libraryFailure != null)
        {
            return "libibverbs could not be loaded (install libibverbs1 and ibverbs-providers from rdma-core): " +
                oneLine(libraryFailure);
        }
        if (!env.deviceDirectoryExists())
        {
            return DEVICE_DIRECTORY + " does not exist: no RDMA kernel driver is loaded (real HCA: load its driver; " +
                "SoftRoCE: modprobe rdma_rxe && rdma link add rxe0 type rxe netdev <ethN>), or this is a container " +
                "not given the device (docker run --device " + DEVICE_DIRECTORY + "/uverbs0 --ulimit memlock=-1:-1)";
        }
        final List<DeviceSummary> devices;
        try
        {
            devices = env.devices();
        }
        catch (final RuntimeException | LinkageError e)
        {
            return "listing RDMA devices failed: " + e;
        }
        if (devices.isEmpty())
        {
            return "no RDMA device found by ibv_get_device_list although " + DEVICE_DIRECTORY + " exists (missing " +
                "user-space provider? install ibverbs-providers; no permission on " + DEVICE_DIRECTORY + "/uverbs*?)";
        }
        for (final DeviceSummary d : devices)
        {
            if (d.hasActivePort())
            {
                return null;
            }
        }
        final StringBuilder sb = new StringBuilder("no RDMA device has an ACTIVE port:");
        for (final DeviceSummary d : devices)
        {
            sb.append(' ').append(d.name()).append(' ').append(d.portStates().isEmpty() ? "[no ports]" : d.portStates());
        }
        return sb.append(" (is the network interface under the device up and linked?)").toString();
    }

    /**
     * JNA's load failure as one line: its message lists every path tried on lines of their own, then the whole
     * resource path searched; the distinct reasons, joined, are what an operator needs.
     */
    static String oneLine(final Throwable failure)
    {
        final String message = failure.getMessage() == null ? "" : failure.getMessage();
        final java.util.LinkedHashSet<String> parts = new java.util.LinkedHashSet<>();
        for (final String line : message.split("\\R"))
        {
            final String l = line.trim();
            if (!l.isEmpty() && !l.startsWith("Native library (") && !l.startsWith("Unable to load library"))
            {
                parts.add(l.endsWith(":") ? l.substring(0, l.length() - 1) : l);
            }
        }
        return failure.getClass().getSimpleName() + (parts.isEmpty() ? "" : ": " + String.join("; ", parts));
    }

    /** Lazily computed, cached cause (computed once per class loader, as Netty does). */
    static final class Cached
    {
        private static volatile String cause;
        private static volatile boolean done;

        private Cached()
        {
        }

        static synchronized String get(final Supplier<String> probe)
        {
            if (!done)
            {
                cause = probe.get();
                done = true;
            }
            return cause;
        }
    }
}

package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.InfinibandSysfs;
import io.rdmakv.transport.device.RdmaDevice;
import io.rdmakv.transport.device.RdmaPort;
import io.rdmakv.transport.device.PortAttributes;
import io.rdmakv.transport.device.PortAttributesSource;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.select.TransportSelector;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Runs the transport-side checks of {@code doctor} and builds a {@link DoctorReport}: RDMA devices and ports from
 * sysfs, {@code /dev/infiniband}, libibverbs, and the transport selection. Every input is injectable so tests run it
 * on a fixture tree; {@link #system(String)} is the real machine.
 *
 * <pre>
 *   TransportDoctor.system("auto").examine()   // sections: RDMA devices, port dev/N..., device files,
 *                                              //           libibverbs, transport selection
 * </pre>
 */
public final class TransportDoctor
{
    private final InfinibandSysfs sysfs;
    private final Path deviceDir;
    private final LibibverbsLocator libibverbs;
    private final TransportSelector selector;
    private final String requestedTransport;

    /**
     * @param sysfs              where devices are read from.
     * @param deviceDir          the {@code /dev/infiniband} to look at.
     * @param libibverbs         finds the installed library.
     * @param selector           the transports to evaluate.
     * @param requestedTransport {@code auto}, {@code tcp} or {@code verbs}; {@code null} means auto.
     */
    public TransportDoctor(final InfinibandSysfs sysfs, final Path deviceDir, final LibibverbsLocator libibverbs,
        final TransportSelector selector, final String requestedTransport)
    {
        this.sysfs = sysfs;
        this.deviceDir = deviceDir;
        this.libibverbs = libibverbs;
        this.selector = selector;
        this.requestedTransport = requestedTransport == null ? TransportSelector.AUTO : requestedTransport;
    }

    /** This machine: {@code /sys/class/infiniband}, {@code /dev/infiniband}, the providers on the class path. */
    public static TransportDoctor system(final String requestedTransport)
    {
        return new TransportDoctor(new InfinibandSysfs(InfinibandSysfs.DEFAULT_ROOT), DeviceFiles.DEFAULT_DIR,
            LibibverbsLocator.system(), TransportSelector.fromClassPath(), requestedTransport);
    }

    public String requestedTransport()
    {
        return requestedTransport;
    }

    public TransportSelector selector()
    {
        return selector;
    }

    public DoctorReport examine()
    {
        final List<RdmaDevice> devices = sysfs.devices();
        final Optional<PortAttributesSource> source = attributeSource();
        final List<ReportSection> sections = new ArrayList<>();
        final Map<String, PortAttributes> attributes = new LinkedHashMap<>();
        sections.add(RdmaChecks.devices(sysfs.root(), devices));
        for (final RdmaDevice d : devices)
        {
            for (final RdmaPort p : d.ports())
            {
                final Optional<PortAttributes> a = source.flatMap(s -> query(s, d.name(), p.number()));
                a.ifPresent(v -> attributes.put(d.name() + "/" + p.number(), v));
                sections.add(RdmaChecks.port(d, p, a, source.isPresent()));
            }
        }
        sections.add(RdmaChecks.deviceFiles(DeviceFiles.scan(deviceDir)));
        sections.add(RdmaChecks.libibverbs(libibverbs.locate()));
        sections.add(TransportChecks.evaluate(selector, requestedTransport));
        return new DoctorReport(sections, devices, attributes);
    }

    /** The first available provider that can query ports (the verbs transport). */
    private Optional<PortAttributesSource> attributeSource()
    {
        for (final TransportProvider p : selector.providers())
        {
            if (p instanceof PortAttributesSource source && !TransportProvider.isDisabledByProperty(p.name()) &&
                p.isAvailable())
            {
                return Optional.of(source);
            }
        }
        return Optional.empty();
    }

    private static Optional<PortAttributes> query(final PortAttributesSource s, final String device, final int port)
    {
        try
        {
            return s.portAttributes(device, port);
        }
        catch (final RuntimeException ex)
        {
            // The hook promises not to throw; a doctor must report, not crash, if one does.
            return Optional.empty();
        }
    }
}

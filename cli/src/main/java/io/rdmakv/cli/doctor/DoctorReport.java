package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.RdmaDevice;
import io.rdmakv.transport.device.PortAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Everything {@code doctor} found: sections of checks for people, and the raw device data for {@code --json}.
 * Immutable; {@link #withSection} adds what another module checks (the memory pool's memlock limit).
 *
 * @param sections       in display order.
 * @param devices        the RDMA devices read from sysfs.
 * @param portAttributes what a port query added, keyed {@code "<device>/<port>"}.
 */
public record DoctorReport(List<ReportSection> sections, List<RdmaDevice> devices,
    Map<String, PortAttributes> portAttributes)
{
    /** Exit code when everything can work (warnings included). */
    public static final int EXIT_OK = 0;
    /** Exit code when the configuration cannot work: some check is FAIL. */
    public static final int EXIT_CANNOT_WORK = 2;

    public DoctorReport
    {
        sections = List.copyOf(sections);
        devices = List.copyOf(devices);
        portAttributes = Map.copyOf(portAttributes);
    }

    /** The worst severity over every check. */
    public Severity verdict()
    {
        Severity s = Severity.OK;
        for (final ReportSection section : sections)
        {
            s = s.worst(section.severity());
        }
        return s;
    }

    /** {@link #EXIT_CANNOT_WORK} when any check failed, else {@link #EXIT_OK}. */
    public int exitCode()
    {
        return verdict() == Severity.FAIL ? EXIT_CANNOT_WORK : EXIT_OK;
    }

    /** Every check of the given severity, with its section title, for the summary. */
    public List<String> findings(final Severity severity)
    {
        final List<String> out = new ArrayList<>();
        for (final ReportSection section : sections)
        {
            for (final Check c : section.checks())
            {
                if (c.severity() == severity)
                {
                    out.add(section.title() + ": " + c.name() + ": " + c.message());
                }
            }
        }
        return out;
    }

    /** A copy with one more section at the end. */
    public DoctorReport withSection(final ReportSection section)
    {
        final List<ReportSection> all = new ArrayList<>(sections);
        all.add(section);
        return new DoctorReport(all, devices, portAttributes);
    }
}

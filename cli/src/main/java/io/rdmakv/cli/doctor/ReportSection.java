package io.rdmakv.cli.doctor;

import java.util.List;
import java.util.Objects;

/**
 * A titled group of checks in a {@link DoctorReport}, e.g. one RDMA port or the transport selection.
 *
 * @param title  heading, e.g. {@code "port mlx5_0/1"}.
 * @param checks the checks in the order they were made.
 */
public record ReportSection(String title, List<Check> checks)
{
    public ReportSection
    {
        Objects.requireNonNull(title, "title");
        checks = List.copyOf(checks);
    }

    /** The worst severity of the section's checks; OK when it has none. */
    public Severity severity()
    {
        Severity s = Severity.OK;
        for (final Check c : checks)
        {
            s = s.worst(c.severity());
        }
        return s;
    }
}

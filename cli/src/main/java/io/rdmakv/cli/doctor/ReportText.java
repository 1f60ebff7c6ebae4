package io.rdmakv.cli.doctor;

import java.util.List;

/**
 * Renders a {@link DoctorReport} for a terminal:
 * <pre>
 *   == RDMA devices ==
 *   [WARN] devices: no RDMA devices in /sys/class/infiniband (no HCA, or its driver is not loaded)
 *          fix: load the HCA driver ...
 *   == transport selection ==
 *   [OK  ] providers: tcp
 *          tcp: available; [SEND_RECV, READ_EMULATED, CALLER_LANES]
 *   ...
 *   verdict: WARN (exit 0): 2 warning(s), 0 failure(s)
 * </pre>
 */
public final class ReportText
{
    private static final String INDENT = "       ";

    private ReportText()
    {
    }

    public static String render(final DoctorReport report)
    {
        final StringBuilder sb = new StringBuilder(4096);
        sb.append("rdmakv doctor\n");
        for (final ReportSection section : report.sections())
        {
            sb.append('\n').append("== ").append(section.title()).append(" ==\n");
            for (final Check c : section.checks())
            {
                sb.append('[').append(tag(c.severity())).append("] ").append(c.name()).append(": ")
                    .append(c.message()).append('\n');
                for (final String line : c.details())
                {
                    sb.append(INDENT).append(line).append('\n');
                }
                if (c.fix() != null)
                {
                    sb.append(INDENT).append("fix: ").append(c.fix()).append('\n');
                }
            }
        }
        final List<String> warnings = report.findings(Severity.WARN);
        final List<String> failures = report.findings(Severity.FAIL);
        sb.append('\n').append("verdict: ").append(report.verdict()).append(" (exit ").append(report.exitCode())
            .append("): ").append(warnings.size()).append(" warning(s), ").append(failures.size())
            .append(" failure(s)\n");
        for (final String f : failures)
        {
            sb.append("  FAIL ").append(f).append('\n');
        }
        return sb.toString();
    }

    private static String tag(final Severity s)
    {
        return switch (s)
        {
            case OK -> "OK  ";
            case WARN -> "WARN";
            case FAIL -> "FAIL";
        };
    }
}

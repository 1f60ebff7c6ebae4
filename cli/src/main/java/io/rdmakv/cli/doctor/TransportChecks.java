package io.rdmakv.cli.doctor;

import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.select.TransportSelector;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which transport {@code auto} would pick and why, and whether an explicitly requested transport can be used. The
 * only place where {@code doctor} says FAIL about RDMA: a requested transport that is unusable, or no usable
 * transport at all. The TCP fallback on a machine without RDMA is a WARN that names why verbs lost.
 */
public final class TransportChecks
{
    /** The fixes that make verbs usable, in the order an operator would try them. */
    static final String VERBS_FIX = "to use RDMA this host needs an RDMA device with an ACTIVE port, " +
        "/dev/infiniband/uverbs*, libibverbs1 and ibverbs-providers (see the sections above; " + RdmaChecks.SOFTROCE_HINT +
        ")";

    private TransportChecks()
    {
    }

    /**
     * @param selector  the selector over the providers on the class path.
     * @param requested {@code auto}, {@code tcp}, {@code verbs} (from the configuration); {@code null} means auto.
     */
    public static ReportSection evaluate(final TransportSelector selector, final String requested)
    {
        final String wanted = requested == null ? TransportSelector.AUTO : requested.trim().toLowerCase(Locale.ROOT);
        final List<Check> checks = new ArrayList<>();
        checks.add(Check.ok("providers", selector.providers().isEmpty() ? "none on the class path" :
            String.join(", ", selector.providers().stream().map(TransportProvider::name).toList()))
            .withDetails(selector.providers().stream().map(TransportChecks::describe).toList()));
        checks.add(auto(selector, !TransportSelector.AUTO.equals(wanted)));
        if (!TransportSelector.AUTO.equals(wanted))
        {
            checks.add(requested(selector, wanted));
        }
        return new ReportSection("transport selection", checks);
    }

    private static Check auto(final TransportSelector selector, final boolean informational)
    {
        final TransportSelector.Selection s;
        try
        {
            s = selector.evaluate(TransportSelector.AUTO);
        }
        catch (final TransportException ex)
        {
            // With an explicit transport that works, a failing auto does not stop the configuration.
            return informational ?
                Check.warn("auto", ex.getMessage(), "check the transport requested below") :
                Check.fail("auto", ex.getMessage(), VERBS_FIX + "; the TCP transport needs only the JDK: " +
                    "check that rdmakv's jar is complete");
        }
        final String line = "auto -> " + s.provider().name() + " (" + s.reason() + ")";
        if (s.provider().capabilities().has(TransportCapability.READ_NATIVE))
        {
            return Check.ok("auto", line).withDetails(rejected(s));
        }
        final boolean verbsKnown = selector.providers().stream().anyMatch(p -> p.name().equals("verbs"));
        final String why = verbsKnown ? String.join("; ", s.rejected()) : "no verbs transport on the class path";
        // The rejections are the message here, so they are not repeated as detail lines.
        return Check.warn("auto", line + "; one-sided reads are emulated in software: " + why,
            verbsKnown ? VERBS_FIX : "run a build of rdmakv that includes the verbs transport");
    }

    private static Check requested(final TransportSelector selector, final String wanted)
    {
        try
        {
            selector.evaluate(wanted);
            return Check.ok("requested", "transport=" + wanted + " is usable");
        }
        catch (final TransportException ex)
        {
            final boolean known = selector.providers().stream().anyMatch(p -> p.name().equals(wanted));
            return Check.fail("requested", ex.getMessage(), known ?
                ("verbs".equals(wanted) ? VERBS_FIX + "; or set transport=auto to fall back to TCP" :
                    "make it usable, or set transport=auto") :
                "set transport to auto or one of " + selector.providers().stream().map(TransportProvider::name).toList());
        }
    }

    private static List<String> rejected(final TransportSelector.Selection s)
    {
        return s.rejected().stream().map(r -> "rejected " + r).toList();
    }

    private static String describe(final TransportProvider p)
    {
        final String cause = TransportProvider.isDisabledByProperty(p.name()) ?
            "disabled by -Drdmakv.transport." + p.name() + ".disabled=true" :
            p.isAvailable() ? null : p.unavailabilityCause();
        return p.name() + ": " + (cause == null ? "available" : "unavailable: " + cause) + "; " +
            p.capabilities().flags();
    }
}

package io.rdmakv.transport.select;

import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.ServiceLoader;

/**
 * Picks a transport, in the spirit of UCX's {@code ucp_wireup_select}: filter on required capabilities and
 * availability, score what is left (native one-sided read first, then the performance model), and state in one log
 * line the choice and why every other transport lost.
 */
public final class TransportSelector
{
    public static final String AUTO = "auto";
    private static final Logger LOG = LoggerFactory.getLogger(TransportSelector.class);

    private final List<TransportProvider> providers;

    public TransportSelector(final List<TransportProvider> providers)
    {
        this.providers = List.copyOf(providers);
    }

    /** All providers on the class path, through {@link ServiceLoader}. */
    public static TransportSelector fromClassPath()
    {
        final List<TransportProvider> found = new ArrayList<>();
        ServiceLoader.load(TransportProvider.class).forEach(found::add);
        found.sort(Comparator.comparing(TransportProvider::name));
        return new TransportSelector(found);
    }

    public List<TransportProvider> providers()
    {
        return providers;
    }

    /**
     * Select by name or {@code auto}.
     *
     * @throws TransportException when the named transport is unknown or unavailable (with its cause), or when
     *                            {@code auto} finds nothing usable.
     */
    public Selection select(final String request)
    {
        final Selection selection = evaluate(request);
        LOG.info(selection.summary());
        return selection;
    }

    /** Same as {@link #select} without logging: for {@code doctor} and tests. */
    public Selection evaluate(final String request)
    {
        final String wanted = request == null ? AUTO : request.trim().toLowerCase(java.util.Locale.ROOT);
        final List<String> rejected = new ArrayList<>();
        if (!AUTO.equals(wanted))
        {
            for (final TransportProvider p : providers)
            {
                if (p.name().equals(wanted))
                {
                    if (!available(p))
                    {
                        throw new TransportException("transport '" + wanted + "' was requested but is not usable: " +
                            cause(p));
                    }
                    providers.stream().filter(o -> o != p)
                        .forEach(o -> rejected.add(o.name() + ": not requested (transport=" + wanted + ")"));
                    return new Selection(p, "requested by configuration", rejected);
                }
            }
            throw new TransportException("unknown transport '" + wanted + "'; known: " +
                providers.stream().map(TransportProvider::name).toList());
        }

        TransportProvider best = null;
        for (final TransportProvider p : providers)
        {
            if (!p.capabilities().has(TransportCapability.SEND_RECV) || !p.capabilities().canRead())
            {
                rejected.add(p.name() + ": lacks send/recv or one-sided read");
            }
            else if (!available(p))
            {
                rejected.add(p.name() + ": " + cause(p));
            }
            else if (best == null || score(p) > score(best))
            {
                if (best != null)
                {
                    rejected.add(best.name() + ": scored lower than " + p.name());
                }
                best = p;
            }
            else
            {
                rejected.add(p.name() + ": scored lower than " + best.name());
            }
        }
        if (best == null)
        {
            throw new TransportException("no usable transport: " + String.join("; ", rejected));
        }
        final String why = best.capabilities().has(TransportCapability.READ_NATIVE) ?
            "best available, with native one-sided read" : "best available (one-sided read emulated)";
        return new Selection(best, why, rejected);
    }

    private static boolean available(final TransportProvider p)
    {
        return !TransportProvider.isDisabledByProperty(p.name()) && p.isAvailable();
    }

    private static String cause(final TransportProvider p)
    {
        if (TransportProvider.isDisabledByProperty(p.name()))
        {
            return "disabled by -Drdmakv.transport." + p.name() + ".disabled=true";
        }
        final String cause = p.unavailabilityCause();
        return cause == null ? "unavailable" : cause;
    }

    /** Native reads dominate; then lower modelled cost of a 4 KiB read wins. */
    private static double score(final TransportProvider p)
    {
        final double nativeBonus = p.capabilities().has(TransportCapability.READ_NATIVE) ? 1e12 : 0;
        return nativeBonus - p.capabilities().estimateNanos(4096);
    }

    /**
     * The outcome of a selection.
     *
     * @param provider the chosen transport.
     * @param reason   why it was chosen.
     * @param rejected one entry per other transport: {@code name: reason}.
     */
    public record Selection(TransportProvider provider, String reason, List<String> rejected)
    {
        public String summary()
        {
            return "transport selected: " + provider.name() + " (" + reason + ")" +
                (rejected.isEmpty() ? "" : "; rejected: " + String.join("; ", rejected));
        }
    }
}

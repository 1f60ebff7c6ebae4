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
import java.util.function.Predicate;

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
            else if (p.capabilities().has(TransportCapability.HOST_LOCAL))
            {
                rejected.add(p.name() + ": reaches only peers on this host (request it with transport=" + p.name() + ")");
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

    /**
     * The transports this side can use for {@code request}, best first: what a client offers in its HELLO. For a
     * named transport just that one (refused as {@link #evaluate} refuses it); for {@code auto} every available one
     * with send/recv and a one-sided read, host-local ones included (they win on the same host, see
     * {@link #negotiate}).
     *
     * @param request {@code auto} or a transport's name.
     * @return names, best first; never empty.
     * @throws TransportException as {@link #evaluate} does.
     */
    public List<String> usable(final String request)
    {
        final String wanted = normalise(request);
        if (!AUTO.equals(wanted))
        {
            return List.of(evaluate(wanted).provider().name());
        }
        final List<TransportProvider> usable = new ArrayList<>();
        for (final TransportProvider p : providers)
        {
            if (p.capabilities().has(TransportCapability.SEND_RECV) && p.capabilities().canRead() && available(p))
            {
                usable.add(p);
            }
        }
        if (usable.isEmpty())
        {
            evaluate(wanted); // throws with every transport's reason
        }
        usable.sort(Comparator.comparingDouble(TransportSelector::preference).reversed());
        return usable.stream().map(TransportProvider::name).toList();
    }

    /**
     * Choose the transport to talk to one node with: the best that both sides have ({@code auto}), or the one
     * requested. Host-local transports count only when the node is on this host. Does not log: the caller puts
     * {@link Selection#summary()} in its connect line.
     *
     * @param request   {@code auto} or a transport's name.
     * @param offered   the transports the node serves (its WELCOME's addresses), in its order.
     * @param onThisHost whether the node's address of a host-local transport (by name) is on this host.
     * @return the choice, why, and why every other transport lost.
     * @throws TransportException when a named transport is unusable here, or nothing usable here is offered.
     */
    public Selection negotiate(final String request, final List<String> offered, final Predicate<String> onThisHost)
    {
        final String wanted = normalise(request);
        if (!AUTO.equals(wanted))
        {
            final Selection named = evaluate(wanted);
            final String reason = offered.contains(wanted) ? "requested by configuration; the node serves " +
                offered : "requested by configuration, but the node serves only " + offered;
            return new Selection(named.provider(), reason, named.rejected());
        }
        final List<String> rejected = new ArrayList<>();
        TransportProvider best = null;
        for (final TransportProvider p : providers)
        {
            final String why = negotiable(p, offered, onThisHost);
            if (why != null)
            {
                rejected.add(p.name() + ": " + why);
            }
            else if (best == null || preference(p) > preference(best))
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
            throw new TransportException("no transport both this side and the node have (the node serves " +
                offered + "): " + String.join("; ", rejected));
        }
        final String why = best.capabilities().has(TransportCapability.HOST_LOCAL) ?
            "same host as the node (boot id and network namespace match): the best transport both sides have" :
            best.capabilities().has(TransportCapability.READ_NATIVE) ?
                "the best transport both sides have, with native one-sided read" :
                "the best transport both sides have (one-sided read emulated)";
        return new Selection(best, why + "; the node serves " + offered, rejected);
    }

    /** Null when {@code p} can be negotiated with the node, else why not. */
    private static String negotiable(final TransportProvider p, final List<String> offered,
        final Predicate<String> onThisHost)
    {
        if (!p.capabilities().has(TransportCapability.SEND_RECV) || !p.capabilities().canRead())
        {
            return "lacks send/recv or one-sided read";
        }
        if (!available(p))
        {
            return cause(p);
        }
        if (!offered.contains(p.name()))
        {
            return "the node does not serve it";
        }
        if (p.capabilities().has(TransportCapability.HOST_LOCAL) && !onThisHost.test(p.name()))
        {
            return "the node is not on this host (another boot id or network namespace)";
        }
        return null;
    }

    /** Host-local transports first (where they apply they beat any NIC), then {@link #score}. */
    private static double preference(final TransportProvider p)
    {
        return (p.capabilities().has(TransportCapability.HOST_LOCAL) ? 1e15 : 0) + score(p);
    }

    private static String normalise(final String request)
    {
        return request == null ? AUTO : request.trim().toLowerCase(java.util.Locale.ROOT);
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

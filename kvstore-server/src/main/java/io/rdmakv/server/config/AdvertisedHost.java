package io.rdmakv.server.config;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;

/**
 * The address a node tells clients and peers ({@code advertised.host}) when the setting is not given.
 *
 * <pre>
 *   advertised.host set                 that, as given (the operator's choice wins, loopback included)
 *   host not a wildcard                 host (a node bound to 127.0.0.1 advertises 127.0.0.1)
 *   host a wildcard (0.0.0.0, ::, "")   the first address, in interface-index order, of an interface that is up and
 *                                       not loopback, that is neither loopback, link-local nor a wildcard; IPv4
 *                                       before IPv6
 *                                       none: 127.0.0.1 with a WARN (only this machine's clients can reach the
 *                                       node then anyway), naming advertised.host
 * </pre>
 *
 * Not {@code InetAddress.getLocalHost()}: on a stock Debian or Ubuntu host the host name maps to 127.0.1.1 in
 * {@code /etc/hosts}, a loopback address, and a remote client told it would dial itself (issue 30). Interfaces are
 * read once per configuration; the choice itself ({@link #choose}) is pure, over a list of addresses given to it.
 */
final class AdvertisedHost
{
    /** One address of one network interface, as {@link #choose} sees it. */
    record InterfaceAddress(String interfaceName, int index, boolean up, boolean loopbackInterface,
        InetAddress address)
    {
    }

    /**
     * What to advertise and why.
     *
     * @param host   the address literal (or name) to advertise.
     * @param reason one sentence for the node's start-up log.
     * @param picked true when it was picked among the interfaces (the node logs it at INFO).
     * @param loopbackOnly true when no interface had a usable address and loopback is advertised (logged at WARN).
     */
    record Choice(String host, String reason, boolean picked, boolean loopbackOnly)
    {
        Choice(final String host, final String reason, final boolean picked)
        {
            this(host, reason, picked, false);
        }
    }

    private AdvertisedHost()
    {
    }

    static boolean isWildcard(final String host)
    {
        return host.isEmpty() || host.equals("0.0.0.0") || host.equals("::") || host.equals("[::]");
    }

    /**
     * Decide the advertised host.
     *
     * @param bind       {@code host}, trimmed.
     * @param explicit   {@code advertised.host}, or null when not set.
     * @param interfaces this machine's interface addresses (only read when {@code bind} is a wildcard).
     * @return the choice.
     */
    static Choice choose(final String bind, final String explicit, final InterfaceSource interfaces)
    {
        if (explicit != null && !explicit.trim().isEmpty())
        {
            return new Choice(explicit.trim(), NetworkKeys.ADVERTISED_HOST.name(), false);
        }
        if (!isWildcard(bind))
        {
            return new Choice(bind, "the bind address (host)", false);
        }
        final List<InterfaceAddress> all = new ArrayList<>(interfaces.addresses());
        all.sort(Comparator.comparingInt(InterfaceAddress::index));
        InterfaceAddress v6 = null;
        for (final InterfaceAddress a : all)
        {
            if (!usable(a))
            {
                continue;
            }
            if (a.address() instanceof Inet4Address)
            {
                return picked(bind, a, all);
            }
            if (v6 == null)
            {
                v6 = a;
            }
        }
        if (v6 != null)
        {
            return picked(bind, v6, all);
        }
        // Nothing but loopback is up (a container with --network none, a service started before the network): no
        // remote client can reach this node now, so loopback is true for every client that can; say so loudly.
        return new Choice("127.0.0.1", "host=" + bind + " is a wildcard and this machine has no interface that is " +
            "up with a non-loopback, non-link-local address (seen: " + describe(all) + "): advertising 127.0.0.1, " +
            "which only clients on this machine can use; once a network is up, restart or set advertised.host " +
            "(--advertised-host HOST) to the address clients reach this node at", true, true);
    }

    private static boolean usable(final InterfaceAddress a)
    {
        final InetAddress ip = a.address();
        return a.up() && !a.loopbackInterface() && !ip.isLoopbackAddress() && !ip.isLinkLocalAddress() &&
            !ip.isAnyLocalAddress();
    }

    private static Choice picked(final String bind, final InterfaceAddress a, final List<InterfaceAddress> all)
    {
        final String host = literal(a.address());
        return new Choice(host, "host=" + bind + " is a wildcard and advertised.host is not set: advertising " + host +
            " of " + a.interfaceName() + ", the first interface that is up with a non-loopback, non-link-local " +
            "address (IPv4 first; seen: " + describe(all) + "); set advertised.host to choose another", true);
    }

    private static String literal(final InetAddress address)
    {
        final String s = address.getHostAddress();
        final int scope = s.indexOf('%');
        return scope < 0 ? s : s.substring(0, scope);
    }

    private static String describe(final List<InterfaceAddress> all)
    {
        if (all.isEmpty())
        {
            return "no interfaces";
        }
        final List<String> seen = new ArrayList<>();
        for (final InterfaceAddress a : all)
        {
            seen.add(a.interfaceName() + " " + literal(a.address()) + (a.up() ? "" : " (down)"));
        }
        return String.join(", ", seen);
    }

    /** Where the interface addresses come from: this machine's in a node, a fixed list in tests. */
    @FunctionalInterface
    interface InterfaceSource
    {
        List<InterfaceAddress> addresses();

        /** This machine's interfaces ({@link NetworkInterface}); empty when they cannot be listed. */
        static InterfaceSource system()
        {
            return () ->
            {
                final List<InterfaceAddress> list = new ArrayList<>();
                try
                {
                    for (final NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces()))
                    {
                        final boolean up = ni.isUp();
                        final boolean loopback = ni.isLoopback();
                        for (final InetAddress ip : Collections.list(ni.getInetAddresses()))
                        {
                            list.add(new InterfaceAddress(ni.getName(), ni.getIndex(), up, loopback, ip));
                        }
                    }
                }
                catch (final SocketException ex)
                {
                    throw new ConfigException("host is a wildcard and this machine's network interfaces cannot be " +
                        "listed (" + ex.getMessage() + "); set advertised.host (--advertised-host HOST)", ex);
                }
                return list;
            };
        }
    }
}

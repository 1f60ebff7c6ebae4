package io.rdmakv.server.config;

import java.util.Map;

/**
 * Where a node listens ({@code host}, {@code control.port}, {@code data.port}, {@code data.tcpPort},
 * {@code data.shmPort}) and what it tells clients and peers to reach it by ({@code advertised.*}): one group of
 * settings with its checks, read once by {@link ServerConfig}, which hands the values out. Immutable; safe from any
 * thread.
 */
final class NodeAddresses
{
    private final String host;
    private final AdvertisedHost.Choice advertisedHost;
    private final int controlPort;
    private final int dataPort;
    /** 0: tell clients the bound port (for the three advertised ports). */
    private final int advertisedControlPort;
    private final int advertisedDataPort;
    private final int tcpPort;
    private final int shmPort;
    private final int advertisedTcpPort;

    NodeAddresses(final Map<String, String> s)
    {
        this(s, AdvertisedHost.InterfaceSource.system());
    }

    NodeAddresses(final Map<String, String> s, final AdvertisedHost.InterfaceSource interfaces)
    {
        host = NetworkKeys.HOST.get(s);
        controlPort = NetworkKeys.CONTROL_PORT.get(s);
        dataPort = NetworkKeys.DATA_PORT.get(s);
        if (controlPort != 0 && controlPort == dataPort)
        {
            throw new ConfigException(NetworkKeys.CONTROL_PORT + " and " + NetworkKeys.DATA_PORT +
                " must differ: both are " + controlPort);
        }
        advertisedHost = AdvertisedHost.choose(host, s.get(NetworkKeys.ADVERTISED_HOST.name()), interfaces);
        advertisedControlPort = orZero(NetworkKeys.ADVERTISED_CONTROL_PORT.get(s));
        advertisedDataPort = orZero(NetworkKeys.ADVERTISED_DATA_PORT.get(s));
        tcpPort = NetworkKeys.TCP_PORT.get(s);
        shmPort = NetworkKeys.SHM_PORT.get(s);
        advertisedTcpPort = orZero(NetworkKeys.ADVERTISED_TCP_PORT.get(s));
    }

    /** An advertised port not given: 0, tell the bound one. */
    private static int orZero(final Integer port)
    {
        return port == null ? 0 : port;
    }

    String host()
    {
        return host;
    }

    /**
     * {@code advertised.host}, else {@code host} unless it is a wildcard, else the first up, non-loopback,
     * non-link-local interface address (IPv4 first; {@link AdvertisedHost}).
     */
    String advertisedHost()
    {
        return advertisedHost.host();
    }

    /** Why {@link #advertisedHost()}: one sentence for the start-up log. */
    String advertisedHostReason()
    {
        return advertisedHost.reason();
    }

    /** True when {@link #advertisedHost()} was picked among this machine's interfaces (a wildcard bind). */
    boolean advertisedHostPicked()
    {
        return advertisedHost.picked();
    }

    /** True when nothing but loopback was up to advertise (a wildcard bind): the node warns. */
    boolean advertisedLoopbackOnly()
    {
        return advertisedHost.loopbackOnly();
    }

    int controlPort()
    {
        return controlPort;
    }

    int dataPort()
    {
        return dataPort;
    }

    int tcpPort()
    {
        return tcpPort;
    }

    int shmPort()
    {
        return shmPort;
    }

    /** {@code advertised.controlPort}, else {@code bound}. */
    int advertisedControlPort(final int bound)
    {
        return advertisedControlPort != 0 ? advertisedControlPort : bound;
    }

    /** {@code advertised.dataPort}, else {@code bound}. */
    int advertisedDataPort(final int bound)
    {
        return advertisedDataPort != 0 ? advertisedDataPort : bound;
    }

    /** {@code advertised.tcpPort}, else {@code bound}. */
    int advertisedTcpPort(final int bound)
    {
        return advertisedTcpPort != 0 ? advertisedTcpPort : bound;
    }
}

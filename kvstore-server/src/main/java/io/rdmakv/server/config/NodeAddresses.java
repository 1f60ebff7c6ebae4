package io.rdmakv.server.config;

import java.util.Map;

import static io.rdmakv.server.config.SettingValues.intSetting;

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
        host = s.get("host").trim();
        controlPort = intSetting(s, "control.port", 0, 65_535);
        dataPort = intSetting(s, "data.port", 0, 65_535);
        if (controlPort != 0 && controlPort == dataPort)
        {
            throw new ConfigException("control.port and data.port must differ: both are " + controlPort);
        }
        advertisedHost = AdvertisedHost.choose(host, s.get("advertised.host"), interfaces);
        advertisedControlPort = s.get("advertised.controlPort") == null ? 0 :
            intSetting(s, "advertised.controlPort", 1, 65_535);
        advertisedDataPort = s.get("advertised.dataPort") == null ? 0 :
            intSetting(s, "advertised.dataPort", 1, 65_535);
        tcpPort = intSetting(s, "data.tcpPort", 0, 65_535);
        shmPort = intSetting(s, "data.shmPort", 0, 65_535);
        advertisedTcpPort = s.get("advertised.tcpPort") == null ? 0 : intSetting(s, "advertised.tcpPort", 1, 65_535);
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

package io.rdmakv.server.config;

import java.util.List;
import java.util.Locale;

/**
 * Settings of the node's transports and addresses: the main transport, where the node listens, what it tells clients
 * and peers ({@code transport*}, {@code host}, {@code advertised.*}, {@code control.*}, {@code data.*},
 * {@code metrics.port}). Each is declared once here; see {@link Setting}.
 */
public final class NetworkKeys
{
    /** Its value is checked when the node selects its transport (a start error), not when the settings are read. */
    public static final Setting<String> TRANSPORT = Setting.text("transport", "enum", "auto",
        "auto | tcp | verbs | shm", t -> t.toLowerCase(Locale.ROOT), "the node's main transport (auto: verbs when " +
            "usable, else tcp); it serves TCP beside it, and shm as transport.serveShm says");

    public static final Setting<ShmServing> SERVE_SHM = Setting.choice("transport.serveShm", ShmServing.AUTO.setting(),
        "auto | true | false", ShmServing::parse, "also serve shm to clients on this host (in its network " +
            "namespace); an auto client there picks it. auto: beside a tcp main transport, where the pool's kind of " +
            "memory costs nothing, never beside verbs (the pool would lose the huge pages its adapter wants) or with " +
            "pool.hugePages, and without it (logged why) where shm cannot work; true: beside any. TCP is always " +
            "served beside verbs or shm");

    public static final Setting<Integer> MAX_INFLIGHT_PER_ENDPOINT = Setting.whole("transport.maxInflightPerEndpoint",
        "int", ServerConfig.DEFAULT_MAX_INFLIGHT_PER_ENDPOINT, 1, ServerConfig.MAX_INFLIGHT_PER_ENDPOINT,
        "operations one data endpoint keeps in flight; more wait in its pending queue");

    public static final Setting<String> HOST = Setting.text("host", "host", "0.0.0.0", t -> t,
        "bind address of the control, data and metrics ports");

    public static final Setting<String> ADVERTISED_HOST = Setting.text("advertised.host", "host", null, t -> t,
        "address clients and peers are told (WELCOME, cluster map, redirects); host when not a wildcard, else the " +
            "first up, non-loopback, non-link-local interface address (IPv4 first; none: 127.0.0.1 with a WARN). " +
            "Behind NAT or Docker -p: the address they reach");

    public static final Setting<Integer> ADVERTISED_CONTROL_PORT = port("advertised.controlPort", null, 1,
        "control port clients and peers are told (cluster map, redirects); default: the bound one. Behind Docker " +
            "-p: the host's side of the mapping");

    public static final Setting<Integer> ADVERTISED_DATA_PORT = port("advertised.dataPort", null, 1,
        "data port clients and peers are told (the WELCOME's transport address); default: the bound one. Behind " +
            "Docker -p: the host's side of the mapping");

    public static final Setting<Integer> CONTROL_PORT = port("control.port", ServerConfig.DEFAULT_CONTROL_PORT, 0,
        "control plane, the port clients dial (HELLO/WELCOME handshake); 0 = any free port");

    public static final Setting<Integer> DATA_PORT = port("data.port", ServerConfig.DEFAULT_DATA_PORT, 0,
        "data plane (the transport's listener: PUT/DELETE/GET/STATS); 0 = any free port");

    public static final Setting<Integer> TCP_PORT = port("data.tcpPort", 0, 0, "TCP listener when TCP is served " +
        "beside another transport (a verbs or shm node); 0 = any free port. A TCP-only node serves on data.port");

    public static final Setting<Integer> SHM_PORT = port("data.shmPort", 0, 0, "shm listener (abstract socket " +
        "@rdmakv-shm-PORT) when shm is served beside another transport; 0 = any free name");

    public static final Setting<Integer> ADVERTISED_TCP_PORT = port("advertised.tcpPort", null, 1, "TCP port clients " +
        "are told when TCP is served beside another transport; default: the bound one. Behind Docker -p: the " +
        "host's side of the mapping");

    /** The handshake codec never accepts more than 64 KiB, so a larger setting would only be misleading. */
    public static final Setting<Integer> CONTROL_MAX_FRAME_BYTES = Setting.whole("control.maxFrameBytes", "bytes",
        65_536, 256, 1 << 16, "largest control-plane frame accepted");

    public static final Setting<Integer> METRICS_PORT = port("metrics.port", 0, 0, "Prometheus endpoint " +
        "http://host:port/metrics, and /health/live, /health/ready; 0 = off");

    /** In the order {@code --list-settings} shows them. */
    static final List<Setting<?>> ALL = List.of(TRANSPORT, SERVE_SHM, MAX_INFLIGHT_PER_ENDPOINT, HOST, ADVERTISED_HOST,
        ADVERTISED_CONTROL_PORT, ADVERTISED_DATA_PORT, CONTROL_PORT, DATA_PORT, TCP_PORT, SHM_PORT,
        ADVERTISED_TCP_PORT, CONTROL_MAX_FRAME_BYTES, METRICS_PORT);

    private NetworkKeys()
    {
    }

    /** A TCP port, {@code min} (0 = any, or 1 where 0 means nothing) to 65535. */
    static Setting<Integer> port(final String name, final Integer defaultValue, final int min,
        final String description)
    {
        return Setting.whole(name, "port", defaultValue, min, 65_535, description);
    }
}

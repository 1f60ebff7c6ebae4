package io.rdmakv.server.cli;

import io.rdmakv.protocol.SharedSecret;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.ServerStartException;
import io.rdmakv.server.config.ClusterKeys;
import io.rdmakv.server.config.ConfigException;
import io.rdmakv.server.config.NetworkKeys;
import io.rdmakv.server.config.NodeKeys;
import io.rdmakv.server.config.PoolKeys;
import io.rdmakv.server.config.RespKeys;
import io.rdmakv.server.config.SecurityKeys;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.config.Setting;
import io.rdmakv.server.config.SettingsReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * {@code rdmakv server}: run one node until SIGTERM/SIGINT, then shut down gracefully. Prints exactly one line
 * starting with {@code READY} on stdout once both ports are bound (for scripts and tests that start it as a child):
 * <pre>
 *   READY node=1 control=127.0.0.1:7400 data=127.0.0.1:7401 transport=tcp serves=tcp,shm startupMs=2345
 *         poolKeys=1048576 poolComplete=true                                        (one line)
 * </pre>
 * {@code transport} is the main transport, {@code serves} every transport the node serves, main first (the start-up
 * log says why shm is or is not among them); {@code startupMs} is the time from the process's start to serving (-1 if
 * the OS does not say), {@code poolKeys} the keys warm-up placed in the pool, {@code poolComplete} whether that is every key (see the "startup:" log line).
 * Exit codes: 0 after a clean shutdown (SIGTERM or SIGINT), 1 when the node cannot start (message on stderr), 2 for a
 * bad configuration.
 */
@Command(name = "server", mixinStandardHelpOptions = true,
    description = {"Run a key-value server node. Clients dial --port, the control plane (handshake); the data plane is "
        + "on --data-port, which the handshake tells them.",
        "Every setting: --list-settings (or docs/settings.md); any of them with -S name=value or --config FILE."},
    exitCodeListHeading = "%nExit codes:%n",
    exitCodeList = {"0:stopped cleanly (SIGTERM, SIGINT)", "1:cannot start (message on stderr)",
        "2:invalid configuration"})
public final class ServerCommand implements Callable<Integer>
{
    private static final Logger LOG = LoggerFactory.getLogger(ServerCommand.class);

    @Option(names = "--config", paramLabel = "FILE", description = "properties file; flags override it")
    Path configFile;

    /** {@code --port} is the port clients dial ({@code rdmakv get --server HOST:PORT}): the control plane's. */
    @Option(names = {"--port", "--control-port"}, paramLabel = "P",
        description = "control port, the one clients connect to (default " + ServerConfig.DEFAULT_CONTROL_PORT +
            "; 0 = any)")
    Integer controlPort;

    @Option(names = "--data-port", paramLabel = "P",
        description = "data port, told to clients in the handshake (default " + ServerConfig.DEFAULT_DATA_PORT +
            "; 0 = any)")
    Integer dataPort;

    @Option(names = "--data-dir", paramLabel = "DIR", description = "RocksDB directory (default ./data)")
    Path dataDir;

    @Option(names = "--host", description = "bind address (default 0.0.0.0)")
    String host;

    @Option(names = "--advertised-host", paramLabel = "HOST",
        description = "address clients and peers are told (behind NAT or Docker -p: the one they reach)")
    String advertisedHost;

    @Option(names = "--advertised-control-port", paramLabel = "P",
        description = "control port clients and peers are told (default: the bound one; Docker -p: the host's side)")
    Integer advertisedControlPort;

    @Option(names = "--advertised-data-port", paramLabel = "P",
        description = "data port clients and peers are told (default: the bound one; Docker -p: the host's side)")
    Integer advertisedDataPort;

    @Option(names = "--advertised-tcp-port", paramLabel = "P",
        description = "TCP port clients are told when TCP is served beside verbs or shm (default: the bound one)")
    Integer advertisedTcpPort;

    @Option(names = "--tcp-port", paramLabel = "P",
        description = "TCP listener when TCP is served beside verbs or shm (setting data.tcpPort; default 0 = any)")
    Integer tcpPort;

    @Option(names = "--serve-shm", arity = "0..1", paramLabel = "auto|true|false", fallbackValue = "true",
        description = "serve shm to clients on this host beside the main transport (transport.serveShm; default " +
            "auto: beside tcp, not beside verbs; --serve-shm alone: true)")
    String serveShm;

    @Option(names = "--pool-size", description = "pool size, e.g. 64MiB, 1GiB")
    String poolSize;

    @Option(names = "--transport",
        description = "main transport: auto | tcp | verbs | shm (TCP is served beside verbs and shm)")
    String transport;

    @Option(names = "--durability", description = "DEFAULT | FSYNC")
    String durability;

    @Option(names = "--node-id", description = "node id")
    Integer nodeId;

    @Option(names = "--pin", description = "AUTO | REQUIRED | BEST_EFFORT | OFF")
    String pin;

    @Option(names = "--secret-file", paramLabel = "FILE",
        description = "the shared secret clients must present: the first line of FILE (setting auth.secretFile; " +
            "else the " + SharedSecret.ENV + " environment variable)")
    Path secretFile;

    @Option(names = "--list-settings", arity = "0..1", paramLabel = "FORMAT", fallbackValue = "text",
        description = "print every setting with its default and meaning (text; json; markdown for docs/settings.md) " +
            "and exit")
    String listSettings;

    @Option(names = "--cluster-nodes", description = "id@host:controlPort:first-last,...")
    String clusterNodes;

    @Option(names = "--metrics-port", paramLabel = "P",
        description = "serve Prometheus metrics on http://HOST:P/metrics (setting metrics.port; default 0 = off)")
    Integer metricsPort;

    @Option(names = "--resp-port", paramLabel = "P",
        description = "serve Redis clients (RESP2/RESP3) on HOST:P (setting resp.port; default 0 = off; docs/resp.md)")
    Integer respPort;

    @Option(names = {"-S", "--set"}, paramLabel = "KEY=VALUE", description = "any setting (see --list-settings)")
    Map<String, String> settings = new LinkedHashMap<>();

    private final PrintStream out;
    private final PrintStream err;
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** The environment (tests give their own). */
    java.util.function.UnaryOperator<String> environment = System::getenv;

    public ServerCommand()
    {
        this(System.out, System.err);
    }

    ServerCommand(final PrintStream out, final PrintStream err)
    {
        this.out = out;
        this.err = err;
    }

    /** The settings the flags name, layered over {@code --set} values. */
    Map<String, String> overrides()
    {
        final Map<String, String> m = new LinkedHashMap<>(settings);
        put(m, NetworkKeys.DATA_PORT, dataPort);
        put(m, NetworkKeys.CONTROL_PORT, controlPort);
        put(m, NodeKeys.DATA_DIR, dataDir);
        put(m, NetworkKeys.HOST, host);
        put(m, NetworkKeys.ADVERTISED_HOST, advertisedHost);
        put(m, NetworkKeys.ADVERTISED_CONTROL_PORT, advertisedControlPort);
        put(m, NetworkKeys.ADVERTISED_DATA_PORT, advertisedDataPort);
        put(m, NetworkKeys.ADVERTISED_TCP_PORT, advertisedTcpPort);
        put(m, NetworkKeys.TCP_PORT, tcpPort);
        put(m, NetworkKeys.SERVE_SHM, serveShm);
        put(m, PoolKeys.SIZE, poolSize);
        put(m, NetworkKeys.TRANSPORT, transport);
        put(m, NodeKeys.DURABILITY, durability);
        put(m, NodeKeys.NODE_ID, nodeId);
        put(m, PoolKeys.PIN, pin);
        put(m, SecurityKeys.SECRET_FILE, secretFile);
        if (secretFile == null && !m.containsKey(SecurityKeys.SECRET_FILE.name()) &&
            !m.containsKey(SecurityKeys.SECRET.name()))
        {
            // The environment is read here, not in ServerConfig: a file's auth.secretFile and it conflict (an error).
            put(m, SecurityKeys.SECRET, SharedSecret.resolve(null, environment, w -> { }));
        }
        put(m, ClusterKeys.NODES, clusterNodes);
        put(m, NetworkKeys.METRICS_PORT, metricsPort);
        put(m, RespKeys.PORT, respPort);
        return m;
    }

    @Override
    public Integer call()
    {
        if (listSettings != null)
        {
            final String listed = SettingsReference.render(listSettings);
            if (listed == null)
            {
                err.println("rdmakv server: --list-settings takes " + String.join(", ", SettingsReference.FORMATS)
                    .replaceFirst(", (?=[^,]*$)", " or ") + ", not '" + listSettings + "'");
                err.flush();
                return 2;
            }
            out.print(listed);
            out.flush();
            return 0;
        }
        if (settings.containsKey(SecurityKeys.SECRET.name()))
        {
            LOG.warn("{} given with -S is visible in ps: use --secret-file FILE or {}", SecurityKeys.SECRET,
                SharedSecret.ENV);
        }
        final ServerConfig config;
        try
        {
            config = ServerConfig.load(configFile, overrides());
        }
        catch (final ConfigException ex)
        {
            err.println("rdmakv server: invalid configuration: " + ex.getMessage());
            return 2;
        }
        final KvServer server;
        try
        {
            server = KvServer.start(config);
        }
        catch (final ServerStartException ex)
        {
            err.println("rdmakv server: cannot start: " + ex.getMessage());
            return 1;
        }
        // SIGTERM/SIGINT only wake this thread, which closes the node and returns 0; the hook covers every other
        // way the JVM may end (System.exit elsewhere, SIGHUP, a refused signal handler) and is a no-op after close.
        StopSignals.install(stopped::countDown);
        final Thread hook = new Thread(() ->
        {
            server.close();
            stopped.countDown();
        }, "rdmakv-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        out.println("READY node=" + config.nodeId() +
            " control=" + hostPort(config.advertisedHost(), server.advertisedControlPort()) +
            " data=" + hostPort(config.advertisedHost(), server.advertisedDataPort()) +
            " transport=" + server.transportName() +
            " serves=" + String.join(",", server.welcome().transports().stream().map(t -> t.transport()).toList()) +
            " startupMs=" + server.startupReport().sinceProcessStartMillis() +
            " poolKeys=" + server.startupReport().poolKeys() +
            " poolComplete=" + server.startupReport().complete() +
            (server.metricsAddress() == null ? "" :
                " metrics=" + hostPort(config.advertisedHost(), server.metricsAddress().getPort())) +
            (server.respAddress() == null ? "" :
                " resp=" + hostPort(config.advertisedHost(), server.respAddress().getPort())));
        out.flush();
        try
        {
            stopped.await();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        server.close();
        return 0;
    }

    private static String hostPort(final String host, final int port)
    {
        return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
    }

    private static void put(final Map<String, String> m, final Setting<?> setting, final Object value)
    {
        if (value != null)
        {
            m.put(setting.name(), value.toString());
        }
    }

    /** Run with picocli's parsing and error reporting; returns the exit code. */
    public static int run(final String... args)
    {
        return new CommandLine(new ServerCommand()).execute(args);
    }
}

package io.rdmakv.cli.bench;

import io.rdmakv.cli.ExitCodes;
import io.rdmakv.cli.RdmakvCommand;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.cli.SecretOptions;
import io.rdmakv.cli.TlsOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.OptionalLong;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv bench}: a YCSB-style load generator for rdmakv, redis-server (RESP) and memcached. See the package
 * documentation for its parts; this class only turns options into {@link BenchSettings} and a {@link KvDriver}.
 */
@Command(name = "bench", mixinStandardHelpOptions = true, sortOptions = false,
    description = {
        "Drive a store with a YCSB-style workload and report throughput and latency percentiles per operation.",
        "The same generator drives rdmakv (--driver rdmakv), redis-server (--driver resp) and memcached " +
            "(--driver memcached), so their numbers compare.",
        "",
        "Examples:",
        "  rdmakv bench --workload B --distribution zipfian --keys 100000 --value-size 100 --duration 10s",
        "  rdmakv bench --workload B --distribution zipfian --get-mode one-sided --location-cache 0",
        "  rdmakv bench --driver resp -s 127.0.0.1:6379 --connections 50 --threads 2 --inflight 16 --json out.json"})
public final class BenchCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Option(names = "--driver", defaultValue = "rdmakv", paramLabel = "NAME",
        description = "rdmakv, resp (redis-server), memcached, or local (an in-process ConcurrentHashMap: " +
            "the floor of this machine). Default: ${DEFAULT-VALUE}.")
    String driver;

    @Option(names = {"-s", "--server"}, paramLabel = "HOST:PORT",
        description = "Where the store listens (rdmakv: a node's control port, may repeat). Defaults: rdmakv " +
            "127.0.0.1:7400, resp 127.0.0.1:6379, memcached 127.0.0.1:11211.")
    List<String> servers = new ArrayList<>();

    @Option(names = {"-w", "--workload"}, defaultValue = "A", paramLabel = "W",
        description = "A (50/50 get/put), B (95/5), C (get only), D (95%% get of the latest, 5%% insert) or a " +
            "mix such as get=90,put=10. Default: ${DEFAULT-VALUE}.")
    String workload;

    @Option(names = "--distribution", defaultValue = "uniform", paramLabel = "D",
        description = "Key choice: uniform or zipfian. Default: ${DEFAULT-VALUE}.")
    String distribution;

    @Option(names = "--theta", defaultValue = "0.99", description = "Zipfian skew. Default: ${DEFAULT-VALUE}.")
    double theta;

    @Option(names = "--keys", defaultValue = "100000", description = "Key count. Default: ${DEFAULT-VALUE}.")
    long keys;

    @Option(names = "--key-size", defaultValue = "16", description = "Key bytes. Default: ${DEFAULT-VALUE}.")
    int keySize;

    @Option(names = "--value-size", defaultValue = "100", description = "Value bytes. Default: ${DEFAULT-VALUE}.")
    int valueSize;

    @Option(names = {"-c", "--connections"}, defaultValue = "1",
        description = "Connections in total. Default: ${DEFAULT-VALUE}.")
    int connections;

    @Option(names = {"-t", "--threads"}, defaultValue = "1",
        description = "Generator threads (at most --connections). Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--inflight", defaultValue = "1",
        description = "Requests sent per connection at a time (pipelining: one write per batch, the next batch " +
            "once all are answered, like redis-benchmark -P). Default: ${DEFAULT-VALUE}.")
    int inFlight;

    @Option(names = {"-d", "--duration"}, defaultValue = "10s", paramLabel = "TIME",
        description = "Measured time, e.g. 10s, 500ms, 2m. Default: ${DEFAULT-VALUE}.")
    String duration;

    @Option(names = "--ops", defaultValue = "0",
        description = "Measured operations instead of a duration (0 = use --duration).")
    long operations;

    @Option(names = "--warmup", defaultValue = "2s", paramLabel = "TIME",
        description = "Run this long before measuring. Default: ${DEFAULT-VALUE}.")
    String warmup;

    @Option(names = "--load", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Write every key once before the run (--no-load to skip). Default: ${DEFAULT-VALUE}.")
    boolean load;

    @Option(names = "--server-pid", defaultValue = "0",
        description = "Process id of the server, for its CPU time per op (default: found from the listening " +
            "port when the server is on this machine).")
    long serverPid;

    @Option(names = "--json", paramLabel = "FILE", description = "Also write the result as JSON to FILE.")
    Path json;

    @Option(names = "--hgrm", paramLabel = "PREFIX",
        description = "Also write PREFIX-<OP>.hgrm latency distributions (microseconds) for plotting.")
    String hgrm;

    @Option(names = "--progress", negatable = true, defaultValue = "true", fallbackValue = "true",
        description = "Print a live progress line on standard error. Default: ${DEFAULT-VALUE}.")
    boolean progress;

    @Option(names = "--clients", defaultValue = "1",
        description = "rdmakv: KvClient instances the connections share (each has its own transport, data " +
            "connection and progress thread). Default: ${DEFAULT-VALUE}.")
    int clients;

    @Option(names = "--transport", defaultValue = "auto", description = "rdmakv: auto, tcp or verbs.")
    String transport;

    @Option(names = "--get-mode", defaultValue = "auto", description = "rdmakv: auto, one-sided or rpc.")
    String getMode;

    @Option(names = "--location-cache", defaultValue = "" + KvClientBuilder.DEFAULT_LOCATION_CACHE_ENTRIES,
        paramLabel = "N", description = "rdmakv: keys per node whose value location each client remembers, so a " +
            "one-sided GET of a remembered key is a single read (0 = off). Default: ${DEFAULT-VALUE}.")
    int locationCache;

    @Option(names = "--ttl", paramLabel = "TIME",
        description = "rdmakv: write every key (the load's too) with this time to live, e.g. 1h. Default: none.")
    String ttl;

    @Option(names = "--timeout-ms", defaultValue = "10000", description = "Connect and request timeout.")
    long timeoutMillis;

    @Mixin
    SecretOptions secret = new SecretOptions();

    @Mixin
    TlsOptions tls = new TlsOptions();

    @Override
    public Integer call() throws InterruptedException
    {
        final PrintStream out = parent.io().out();
        final PrintStream err = parent.io().err();
        final BenchSettings settings;
        final KvDriver kvDriver;
        final OptionalLong pid;
        try
        {
            settings = new BenchSettings(Workload.parse(workload), zipfian(distribution), theta, keys, keySize,
                valueSize, connections, threads, inFlight, parseDuration(duration, "--duration"), operations,
                parseDuration(warmup, "--warmup"), load, progress);
            BenchLimits.check("--server-pid", serverPid, 0, Long.MAX_VALUE);
            kvDriver = driver();
            pid = serverPid > 0 ? OptionalLong.of(serverPid) : localServerPid();
        }
        catch (final BenchException | IllegalArgumentException ex)
        {
            err.println("rdmakv bench: " + ex.getMessage());
            return ExitCodes.USAGE;
        }
        try
        {
            // The store's limits first (for rdmakv: the format's, then the node's, learned by connecting), then
            // whether this JVM can hold the generator's buffers: both before anything is allocated or loaded.
            kvDriver.checkSizes(keySize, valueSize);
            BenchLimits.checkHeap(settings, Runtime.getRuntime().maxMemory());
        }
        catch (final BenchException ex)
        {
            kvDriver.close();
            err.println("rdmakv bench: " + ex.getMessage());
            return ex.getCause() == null ? ExitCodes.USAGE : ExitCodes.FAILED;
        }
        try (KvDriver d = kvDriver)
        {
            final BenchRunner runner = new BenchRunner(d, settings, pid.isPresent() ? ServerCpu.of(pid.getAsLong()) :
                null, err);
            BenchReport.printHeader(out, d.name(), d.describe(), settings);
            final BenchResult result = runner.run();
            BenchReport.printResult(out, result, runner.firstErrorText());
            if (json != null)
            {
                Files.writeString(json, BenchReport.json(d.name(), settings, result), StandardCharsets.UTF_8);
                out.println("json        " + json);
            }
            if (hgrm != null)
            {
                out.println("hgrm        " + BenchReport.writeHgrm(hgrm, result));
            }
            return result.totalErrors() == 0 ? ExitCodes.OK : ExitCodes.FAILED;
        }
        catch (final BenchException | IOException ex)
        {
            err.println("rdmakv bench: " + ex.getMessage());
            return ExitCodes.FAILED;
        }
    }

    private KvDriver driver()
    {
        BenchLimits.check("--timeout-ms", timeoutMillis, 1, BenchLimits.MAX_TIMEOUT_MILLIS);
        BenchLimits.check("--clients", clients, 1, BenchLimits.MAX_CLIENTS);
        final Duration timeout = Duration.ofMillis(timeoutMillis);
        if (ttl != null && !"rdmakv".equalsIgnoreCase(driver))
        {
            throw new BenchException("--ttl is the rdmakv driver's, not " + driver + "'s");
        }
        switch (driver.toLowerCase(Locale.ROOT))
        {
            case "rdmakv":
                if (locationCache < 0 || locationCache > KvClientBuilder.MAX_LOCATION_CACHE_ENTRIES)
                {
                    throw new BenchException("--location-cache must be 0.." +
                        KvClientBuilder.MAX_LOCATION_CACHE_ENTRIES + ", got " + locationCache);
                }
                return new RdmakvDriver(servers.isEmpty() ? List.of("127.0.0.1:7400") : servers, transport,
                    GetMode.parse(getMode), timeout, secret.secret(), secret.login(), Math.min(clients, connections),
                    connections * inFlight, locationCache, tls.settings())
                    .ttl(ttl == null ? null : positive(parseDuration(ttl, "--ttl"), "--ttl"));
            case "resp":
            case "redis":
                return new RespDriver(single(6379).toSocketAddress(), timeout);
            case "memcached":
            case "memcache":
                MemcachedDriver.checkKeySize(keySize);
                return new MemcachedDriver(single(11211).toSocketAddress(), timeout);
            case "local":
                return new LocalMapDriver();
            default:
                throw new BenchException("unknown driver '" + driver + "': rdmakv, resp, memcached or local");
        }
    }

    private HostPort single(final int defaultPort)
    {
        if (servers.size() > 1)
        {
            throw new BenchException("--driver " + driver + " takes one --server");
        }
        return servers.isEmpty() ? new HostPort("127.0.0.1", defaultPort) : HostPort.parse(servers.get(0));
    }

    /** The pid of the server when it listens on this machine (loopback address given), else empty. */
    private OptionalLong localServerPid()
    {
        final String first = servers.isEmpty() ? "127.0.0.1:" + defaultPort() : servers.get(0);
        final HostPort hp = HostPort.parse(first);
        final boolean local = hp.host().equals("localhost") || hp.host().startsWith("127.") ||
            hp.host().equals("::1") || hp.host().equals("[::1]");
        return local ? ServerCpu.pidListeningOn(hp.port()) : OptionalLong.empty();
    }

    private int defaultPort()
    {
        return switch (driver.toLowerCase(Locale.ROOT))
        {
            case "resp", "redis" -> 6379;
            case "memcached", "memcache" -> 11211;
            default -> 7400;
        };
    }

    static boolean zipfian(final String distribution)
    {
        return switch (distribution.toLowerCase(Locale.ROOT))
        {
            case "uniform" -> false;
            case "zipfian", "zipf" -> true;
            default -> throw new BenchException("unknown --distribution '" + distribution + "': uniform or zipfian");
        };
    }

    private static Duration positive(final Duration d, final String option)
    {
        if (d.isZero() || d.isNegative())
        {
            throw new BenchException(option + " must be positive: " + d);
        }
        return d;
    }

    /** "10s", "500ms", "2m", "1h" or a plain number of seconds. */
    static Duration parseDuration(final String text, final String option)
    {
        final String t = text.trim().toLowerCase(Locale.ROOT);
        try
        {
            if (t.endsWith("ms"))
            {
                return Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            }
            final char unit = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
            final String number = Character.isDigit(unit) ? t : t.substring(0, t.length() - 1).trim();
            final double value = Double.parseDouble(number);
            final double seconds = switch (unit)
            {
                case 'm' -> value * 60;
                case 'h' -> value * 3600;
                case 's' -> value;
                default ->
                {
                    if (!Character.isDigit(unit))
                    {
                        throw new NumberFormatException(text);
                    }
                    yield value;
                }
            };
            if (seconds < 0 || !Double.isFinite(seconds))
            {
                throw new NumberFormatException(text);
            }
            return Duration.ofNanos((long)(seconds * 1e9));
        }
        catch (final NumberFormatException ex)
        {
            throw new BenchException(option + " wants a time like 10s, 500ms or 2m, got '" + text + "'");
        }
    }
}

package io.rdmakv.cli;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientDiagnostics;
import io.rdmakv.client.KvStats;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.config.PoolKeys;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.transport.select.TransportSelector;
import org.HdrHistogram.Histogram;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code rdmakv demo}: one node and one client in this process. Loads keys, runs a short mixed workload from several
 * threads, and prints throughput, latency percentiles per operation, how GETs were served, the transport chosen and
 * why, and the memory registrations before and after (flat: nothing registers on the data path).
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Start a node in this process (TCP, and shm beside it; temporary data directory), load keys, " +
        "run a short 90/10 GET/PUT workload from several threads, and report throughput, latencies and how GETs " +
        "were served.")
public final class DemoCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Option(names = "--keys", defaultValue = "10000", description = "Keys to load. Default: ${DEFAULT-VALUE}.")
    int keys;

    @Option(names = "--value-size", defaultValue = "128", description = "Value bytes. Default: ${DEFAULT-VALUE}.")
    int valueSize;

    @Option(names = "--threads", defaultValue = "4", description = "Workload threads. Default: ${DEFAULT-VALUE}.")
    int threads;

    @Option(names = "--duration-ms", defaultValue = "5000",
        description = "Workload duration in milliseconds. Default: ${DEFAULT-VALUE}.")
    long durationMillis;

    @Option(names = "--get-percent", defaultValue = "90", description = "Share of GETs. Default: ${DEFAULT-VALUE}.")
    int getPercent;

    @Option(names = "--transport", defaultValue = "auto",
        description = "Transport of the node and the client: tcp, verbs, shm or auto (auto: the client picks the best " +
            "the node and this host share, shm here, and the demo runs the same workload over tcp beside it, what a " +
            "client on another host gets). Default: ${DEFAULT-VALUE}.")
    String transport;

    @Option(names = "--get-mode", defaultValue = "one-sided",
        description = "How the client serves GETs: one-sided, rpc or auto. Default: ${DEFAULT-VALUE} (so the " +
            "one-sided protocol runs even where reads are only emulated).")
    String getMode;

    @Option(names = "--data-dir", description = "RocksDB directory (default: a temporary one, deleted afterwards).")
    Path dataDir;

    @Option(names = "--pool-size", defaultValue = "64MiB", description = "Pool size. Default: ${DEFAULT-VALUE}.")
    String poolSize;

    @Override
    public Integer call() throws IOException
    {
        if (keys < 1 || valueSize < 0 || threads < 1 || durationMillis < 1 || getPercent < 0 || getPercent > 100)
        {
            throw new IllegalArgumentException("--keys, --threads and --duration-ms must be positive, " +
                "--value-size not negative, --get-percent 0..100");
        }
        final PrintStream out = parent.io().out();
        final boolean temporary = dataDir == null;
        final Path dir = temporary ? Files.createTempDirectory("rdmakv-demo-") : dataDir;
        try
        {
            return runDemo(out, dir, temporary);
        }
        finally
        {
            if (temporary)
            {
                deleteRecursively(dir);
            }
        }
    }

    private int runDemo(final PrintStream out, final Path dir, final boolean temporary)
    {
        final Map<String, String> settings = new LinkedHashMap<>();
        settings.put("data.dir", dir.toString());
        settings.put("transport", transport);
        settings.put("host", "127.0.0.1");
        settings.put("control.port", "0");
        settings.put("data.port", "0");
        settings.put(PoolKeys.SIZE.name(), poolSize);
        out.printf("rdmakv demo: one node in this process, %d keys of %d B, %d threads for %.1f s, %d%% GET / %d%% PUT%n%n",
            keys, valueSize, threads, durationMillis / 1000.0, getPercent, 100 - getPercent);

        try (KvServer server = KvServer.start(ServerConfig.from(new Properties(), settings));
             KvClient client = KvClient.builder()
                 .server("127.0.0.1:" + server.controlAddress().getPort())
                 .transport(transport)
                 .getMode(GetMode.parse(getMode))
                 .maxInFlight(Math.max(64, threads * 4))
                 .requestTimeout(Duration.ofSeconds(10))
                 .build())
        {
            final KvClientDiagnostics diagnostics = client.diagnostics();
            final GetMode auto = diagnostics.autoGetMode();
            out.printf("%-16s %s%n", "transport", diagnostics.transport());
            out.printf("%-16s %s%n", "  why", diagnostics.transportSelection());
            if (!"auto".equalsIgnoreCase(transport))
            {
                out.printf("%-16s %s%n", "  auto", autoSelection(server));
            }
            out.printf("%-16s %s%s%n", "get mode", label(diagnostics.getMode()),
                GetMode.parse(getMode) == GetMode.AUTO ? " (auto)" :
                " (as requested; auto would choose " + label(auto) + (auto == GetMode.RPC ?
                    ": " + diagnostics.transport() + " only emulates one-sided reads)" : ")"));
            out.printf("%-16s %s%s%n%n", "data dir", dir, temporary ? " (temporary, deleted afterwards)" : "");

            final long serverRegistrationsBefore = server.registrationCount();
            final long clientRegistrationsBefore = diagnostics.registrationCount();

            final DemoWorkload workload = new DemoWorkload(client, keys, valueSize);
            final long loadNanos = workload.load(Math.max(16, threads * 8));
            out.printf("%-16s %d keys in %.2f s (%.0f puts/s)%n", "load", keys, loadNanos / 1e9,
                keys * 1e9 / Math.max(1, loadNanos));
            final Map<ClientCounter, Long> before = diagnostics.counters();
            final DemoWorkload.Result result = workload.run(threads, durationMillis, getPercent);
            final Map<ClientCounter, Long> after = diagnostics.counters();
            final double seconds = result.elapsedNanos() / 1e9;
            out.printf("%-16s %d ops in %.2f s = %.0f ops/s (GET %.0f/s, PUT %.0f/s), %d errors%n%n", "workload",
                result.operations(), seconds, result.opsPerSecond(), result.gets().getTotalCount() / seconds,
                result.puts().getTotalCount() / seconds, result.errors());

            out.printf("%-12s %10s %9s %9s %9s %9s %9s%n", "latency (us)", "count", "p50", "p90", "p99", "p99.9",
                "max");
            printLatency(out, "GET", result.gets());
            printLatency(out, "PUT", result.puts());
            out.println();

            out.printf("%-16s one-sided hits %d, torn reads retried %d, fallbacks to RPC %d, definitive misses %d," +
                    " miss lookups by RPC %d; requests sent %d%n", "GETs served",
                delta(before, after, ClientCounter.GET_ONE_SIDED_HITS),
                delta(before, after, ClientCounter.GET_TORN_RETRIES),
                delta(before, after, ClientCounter.GET_FALLBACKS), delta(before, after, ClientCounter.GET_MISSES),
                delta(before, after, ClientCounter.GET_MISS_LOOKUPS), delta(before, after, ClientCounter.RPCS));
            final long serverAfter = server.registrationCount();
            final long clientAfter = diagnostics.registrationCount();
            out.printf("%-16s node %d before, %d after; client %d before, %d after (%s)%n", "registrations",
                serverRegistrationsBefore, serverAfter, clientRegistrationsBefore, clientAfter,
                serverAfter == serverRegistrationsBefore && clientAfter == clientRegistrationsBefore ?
                    "none on the data path" : "REGISTERED ON THE DATA PATH");

            final KvStats stats = client.stats();
            stats.nodes().forEach((id, counters) ->
            {
                final StringBuilder sb = new StringBuilder();
                counters.forEach((name, value) -> sb.append(sb.length() == 0 ? "" : ", ").append(name).append('=')
                    .append(value));
                out.printf("%-16s %s%n", "node " + id, sb);
            });
            if (result.errors() > 0)
            {
                out.printf("%nERRORS: %d, first: %s%n", result.errors(), result.firstErrors());
                out.flush();
                return ExitCodes.FAILED;
            }
            final String chosen = diagnostics.transport();
            if ("auto".equalsIgnoreCase(transport) && !"tcp".equals(chosen))
            {
                return besideOverTcp(out, server, chosen, result);
            }
            out.flush();
            return ExitCodes.OK;
        }
    }

    /**
     * The same workload over tcp with a client of its own in its default GET mode (the keys are loaded), printed beside
     * what {@code auto} chose: a new user sees the best path on this host and what a client on another host gets.
     */
    private int besideOverTcp(final PrintStream out, final KvServer server, final String chosen,
        final DemoWorkload.Result best)
    {
        final DemoWorkload.Result tcp;
        try (KvClient client = KvClient.builder()
            .server("127.0.0.1:" + server.controlAddress().getPort())
            .transport("tcp")
            .getMode(GetMode.AUTO) // a remote client's default: RPC GETs where reads are only emulated
            .maxInFlight(Math.max(64, threads * 4))
            .requestTimeout(Duration.ofSeconds(10))
            .build())
        {
            tcp = new DemoWorkload(client, keys, valueSize).run(threads, durationMillis, getPercent);
        }
        out.printf("%nbeside it: the same workload over tcp, what a client on another host gets%n");
        out.printf("%-12s %12s %12s %12s%n", "transport", "ops/s", "GET p50 us", "PUT p50 us");
        printSummary(out, chosen, best);
        printSummary(out, "tcp", tcp);
        if (tcp.errors() > 0)
        {
            out.printf("%nERRORS over tcp: %d, first: %s%n", tcp.errors(), tcp.firstErrors());
            out.flush();
            return ExitCodes.FAILED;
        }
        out.flush();
        return ExitCodes.OK;
    }

    private static void printSummary(final PrintStream out, final String name, final DemoWorkload.Result r)
    {
        out.printf("%-12s %12.0f %12s %12s%n", name, r.opsPerSecond(), p50(r.gets()), p50(r.puts()));
    }

    private static String p50(final Histogram h)
    {
        return h.getTotalCount() == 0 ? "-" : String.format(java.util.Locale.ROOT, "%.1f",
            h.getValueAtPercentile(50) / 1e3);
    }

    /**
     * What a client with {@code --transport auto} would pick against this node (in this process, so on its host),
     * and why every other transport would lose.
     */
    private static String autoSelection(final KvServer server)
    {
        try
        {
            final List<String> served = server.welcome().transports().stream().map(TransportAddress::transport)
                .toList();
            return TransportSelector.fromClassPath().negotiate(TransportSelector.AUTO, served, name -> true)
                .summary().replace("transport selected: ", "would select ");
        }
        catch (final RuntimeException ex)
        {
            return "would find nothing usable: " + ex.getMessage();
        }
    }

    private static String label(final GetMode mode)
    {
        return mode == GetMode.ONE_SIDED ? "one-sided" : mode.name().toLowerCase(java.util.Locale.ROOT);
    }

    private static long delta(final Map<ClientCounter, Long> before, final Map<ClientCounter, Long> after,
        final ClientCounter counter)
    {
        return after.getOrDefault(counter, 0L) - before.getOrDefault(counter, 0L);
    }

    private static void printLatency(final PrintStream out, final String op, final Histogram h)
    {
        if (h.getTotalCount() == 0)
        {
            out.printf("%-12s %10d %9s %9s %9s %9s %9s%n", op, 0, "-", "-", "-", "-", "-");
            return;
        }
        out.printf("%-12s %10d %9.1f %9.1f %9.1f %9.1f %9.1f%n", op, h.getTotalCount(),
            h.getValueAtPercentile(50) / 1e3, h.getValueAtPercentile(90) / 1e3, h.getValueAtPercentile(99) / 1e3,
            h.getValueAtPercentile(99.9) / 1e3, h.getMaxValue() / 1e3);
    }

    private static void deleteRecursively(final Path dir)
    {
        try (Stream<Path> paths = Files.walk(dir))
        {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot delete the demo's temporary directory " + dir, ex);
        }
    }
}

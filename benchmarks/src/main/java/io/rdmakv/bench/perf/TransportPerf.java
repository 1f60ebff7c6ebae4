package io.rdmakv.bench.perf;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.select.TransportSelector;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.BusySpinIdleStrategy;
import org.agrona.concurrent.IdleStrategy;

import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The baseline's command line, perftest style:
 *
 * <pre>
 *   TransportPerf read-lat|send-lat|read-bw [--transport auto|tcp|verbs] [-s BYTES | --sizes A,B,C | -a]
 *                 [-n ITERATIONS] [--warmup N] [--depth N] [--busy-poll]
 *                 [--server [--port P] [--bind ADDR] [--seconds S] | --connect HOST:PORT]
 * </pre>
 *
 * Without {@code --server} or {@code --connect} both roles run in this process over loopback, each with its own
 * transport instance. The client's worker is progressed by the measuring thread; the server's on its own thread
 * (backing off when idle unless {@code --busy-poll}, which perftest always does). Exit code 0 on success, 2 for bad
 * arguments, 1 when the run fails.
 */
public final class TransportPerf
{
    /** What to measure. */
    public enum Test
    {
        READ_LAT("read-lat", "RDMA_Read Latency Test"),
        SEND_LAT("send-lat", "Send Latency Test"),
        READ_BW("read-bw", "RDMA_Read BW Test");

        final String command;
        final String title;

        Test(final String command, final String title)
        {
            this.command = command;
            this.title = title;
        }

        static Test of(final String command)
        {
            for (final Test t : values())
            {
                if (t.command.equals(command))
                {
                    return t;
                }
            }
            throw new PerfException("unknown test '" + command + "' (read-lat, send-lat, read-bw)");
        }
    }

    /** Parsed options; see the class comment. */
    static final class Options
    {
        Test test;
        String transport = TransportSelector.AUTO;
        final List<Integer> sizes = new ArrayList<>();
        int iterations = -1;
        int warmup = -1;
        int depth = 64;
        boolean busyPoll;
        boolean serverOnly;
        String connect;
        String bind = "127.0.0.1";
        int port;
        long seconds = -1;

        int maxSize()
        {
            return sizes.stream().mapToInt(Integer::intValue).max().orElse(2);
        }

        int iterationsFor(final int size)
        {
            if (iterations > 0)
            {
                return iterations;
            }
            // Fewer iterations of large transfers, as perftest does for -a, so a sweep stays short.
            final int base = test == Test.READ_BW ? 20_000 : 10_000;
            return size >= 262_144 ? Math.max(200, base / 20) : size >= 16_384 ? base / 4 : base;
        }

        int warmupFor(final int size)
        {
            return warmup >= 0 ? warmup : Math.min(2_000, iterationsFor(size) / 5);
        }
    }

    private TransportPerf()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /** Run with {@code args}; returns the exit code. */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final Options options;
        try
        {
            options = parse(args);
        }
        catch (final PerfException ex)
        {
            err.println("error: " + ex.getMessage());
            err.println(usage());
            return 2;
        }
        try
        {
            execute(options, out);
            return 0;
        }
        catch (final PerfException | TransportException ex)
        {
            err.println("error: " + ex.getMessage());
            return 1;
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            return 1;
        }
    }

    static String usage()
    {
        return "usage: TransportPerf read-lat|send-lat|read-bw [--transport auto|tcp|verbs] " +
            "[-s BYTES | --sizes A,B,C | -a] [-n ITERATIONS] [--warmup N] [--depth N] [--busy-poll] " +
            "[--server [--bind ADDR] [--port P] [--seconds S] | --connect HOST:PORT]";
    }

    static Options parse(final String[] args)
    {
        final Options o = new Options();
        if (args.length == 0)
        {
            throw new PerfException("no test given");
        }
        o.test = Test.of(args[0]);
        for (int i = 1; i < args.length; i++)
        {
            final String a = args[i];
            switch (a)
            {
                case "--transport" -> o.transport = value(args, ++i, a);
                case "-s", "--size" -> o.sizes.add(positive(value(args, ++i, a), a));
                case "--sizes" ->
                {
                    for (final String s : value(args, ++i, a).split(","))
                    {
                        o.sizes.add(positive(s.trim(), a));
                    }
                }
                case "-a", "--all" ->
                {
                    for (int s = 2; s <= 1 << 20; s <<= 1)
                    {
                        o.sizes.add(s);
                    }
                }
                case "-n", "--iters" -> o.iterations = positive(value(args, ++i, a), a);
                case "--warmup" -> o.warmup = nonNegative(value(args, ++i, a), a);
                case "--depth" -> o.depth = positive(value(args, ++i, a), a);
                case "--busy-poll" -> o.busyPoll = true;
                case "--server" -> o.serverOnly = true;
                case "--bind" -> o.bind = value(args, ++i, a);
                case "--port" -> o.port = nonNegative(value(args, ++i, a), a);
                case "--seconds" -> o.seconds = positive(value(args, ++i, a), a);
                case "--connect" -> o.connect = value(args, ++i, a);
                default -> throw new PerfException("unknown option '" + a + "'");
            }
        }
        if (o.serverOnly && o.connect != null)
        {
            throw new PerfException("--server and --connect exclude each other");
        }
        if (o.sizes.isEmpty())
        {
            o.sizes.add(o.test == Test.READ_BW ? 65_536 : 2);
        }
        if (o.port > 65_535)
        {
            throw new PerfException("--port " + o.port + " is not a port");
        }
        return o;
    }

    private static void execute(final Options o, final PrintStream out) throws InterruptedException
    {
        final TransportSelector.Selection selection = TransportSelector.fromClassPath().select(o.transport);
        final TransportProvider provider = selection.provider();
        final int maxSize = Math.max(o.maxSize(), 64);
        final TransportConfig config = TransportConfig.builder()
            .maxMessageBytes(Math.max(maxSize + 4096, TransportConfig.defaults().maxMessageBytes()))
            .maxInflightPerEndpoint(Math.max(o.depth, TransportConfig.defaults().maxInflightPerEndpoint()))
            .property("tcp.maxReadBytes", Integer.toString(Math.max(maxSize, 1 << 20)))
            .build();
        if (provider.capabilities().maxReadBytes() < o.maxSize() && o.test != Test.SEND_LAT)
        {
            out.println("note: " + provider.name() + " declares reads up to " +
                provider.capabilities().maxReadBytes() + " bytes by default; asking for " + o.maxSize());
        }
        final String transportLine = provider.name() + " (" + selection.reason() + ")";
        final IdleStrategy idle = o.busyPoll ? new BusySpinIdleStrategy() :
            new BackoffIdleStrategy(1_000, 100, TimeUnit.MICROSECONDS.toNanos(1), TimeUnit.MICROSECONDS.toNanos(50));

        if (o.serverOnly)
        {
            try (Transport transport = provider.open(config);
                PerfServer server = new PerfServer(transport, new InetSocketAddress(o.bind, o.port), maxSize, idle))
            {
                out.println(" perf server (" + transportLine + ") listening on " + server.localAddress() +
                    (o.seconds > 0 ? " for " + o.seconds + " s" : " until interrupted"));
                out.flush();
                final CountDownLatch forever = new CountDownLatch(1);
                if (o.seconds > 0)
                {
                    forever.await(o.seconds, TimeUnit.SECONDS);
                }
                else
                {
                    forever.await();
                }
            }
            return;
        }

        if (o.connect != null)
        {
            try (Transport transport = provider.open(config);
                PerfClient client = PerfClient.connect(transport, hostPort(o.connect), maxSize))
            {
                measure(o, client, transportLine, "client of " + o.connect, out);
            }
            return;
        }

        try (Transport serverTransport = provider.open(config);
            PerfServer server = new PerfServer(serverTransport, new InetSocketAddress("127.0.0.1", 0), maxSize, idle);
            Transport clientTransport = provider.open(config);
            PerfClient client = PerfClient.connect(clientTransport, server.localAddress(), maxSize))
        {
            measure(o, client, transportLine, "client and server in one process over loopback (" +
                (o.busyPoll ? "server busy-polls" : "server backs off when idle") + ")", out);
        }
    }

    private static void measure(
        final Options o, final PerfClient client, final String transportLine, final String mode, final PrintStream out)
    {
        final PerfReport report = new PerfReport(out);
        final String details = o.test == Test.READ_BW ?
            String.format(Locale.ROOT, "Reads in flight  : %d", o.depth) :
            String.format(Locale.ROOT, "Warm-up          : %d iterations per size%s", o.warmupFor(o.sizes.get(0)),
                o.test == Test.SEND_LAT ? " (latency = half the round trip, as perftest)" : "");
        report.banner(o.test.title, transportLine, mode, details);
        if (o.test == Test.READ_BW)
        {
            report.bandwidthHeader();
        }
        else
        {
            report.latencyHeader();
        }
        for (final int size : o.sizes)
        {
            final int iterations = o.iterationsFor(size);
            switch (o.test)
            {
                case READ_LAT -> report.latencyLine(size, client.readLatency(size, iterations, o.warmupFor(size)), 1);
                case SEND_LAT -> report.latencyLine(size, client.sendRoundTrip(size, iterations, o.warmupFor(size)), 2);
                case READ_BW ->
                {
                    client.readBandwidth(size, Math.max(1, iterations / 10), o.depth);
                    report.bandwidthLine(size, iterations, client.readBandwidth(size, iterations, o.depth));
                }
                default -> throw new IllegalStateException(o.test.toString());
            }
            out.flush();
        }
        report.rule();
    }

    static InetSocketAddress hostPort(final String value)
    {
        final int colon = value.lastIndexOf(':');
        if (colon <= 0 || colon == value.length() - 1)
        {
            throw new PerfException("--connect wants HOST:PORT, got '" + value + "'");
        }
        final int port = nonNegative(value.substring(colon + 1), "--connect");
        if (port == 0 || port > 65_535)
        {
            throw new PerfException("--connect port " + port + " is not a port");
        }
        return new InetSocketAddress(value.substring(0, colon), port);
    }

    private static String value(final String[] args, final int index, final String option)
    {
        if (index >= args.length)
        {
            throw new PerfException(option + " needs a value");
        }
        return args[index];
    }

    private static int positive(final String value, final String option)
    {
        final int v = nonNegative(value, option);
        if (v == 0)
        {
            throw new PerfException(option + " must be positive");
        }
        return v;
    }

    private static int nonNegative(final String value, final String option)
    {
        try
        {
            final int v = Integer.parseInt(value.trim());
            if (v < 0)
            {
                throw new PerfException(option + " must not be negative: " + value);
            }
            return v;
        }
        catch (final NumberFormatException ex)
        {
            throw new PerfException(option + " wants a number, got '" + value + "'");
        }
    }
}

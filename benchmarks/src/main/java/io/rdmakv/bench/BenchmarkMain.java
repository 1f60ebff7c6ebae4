package io.rdmakv.bench;

import io.rdmakv.bench.perf.TransportPerf;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The main class of {@code benchmarks.jar}:
 *
 * <pre>
 *   java -jar benchmarks.jar [JMH options]          the JMH suite (e.g. -prof gc, -f 1, a benchmark regex)
 *   java -jar benchmarks.jar perf read-lat|...      the perftest-style transport baseline ({@link TransportPerf})
 *   java -jar benchmarks.jar report --out F.png a=x.hgrm b=y.hgrm   latency distributions side by side ({@link LatencyReport})
 * </pre>
 *
 * Before handing over to JMH it leaves out the verbs benchmarks, with the reason printed, when the verbs transport
 * is not available here, instead of letting them fail in setup.
 */
public final class BenchmarkMain
{
    /** JVM options every forked benchmark JVM needs: Agrona's UnsafeBuffer uses {@code jdk.internal.misc.Unsafe}. */
    static final String OPEN_MISC = "--add-opens=java.base/jdk.internal.misc=ALL-UNNAMED";
    /** Netty and Agrona reach direct-buffer internals. */
    static final String OPEN_NIO = "--add-opens=java.base/java.nio=ALL-UNNAMED";
    static final String NETTY_REFLECTION = "-Dio.netty.tryReflectionSetAccessible=true";

    private BenchmarkMain()
    {
    }

    public static void main(final String[] args) throws Exception
    {
        if (args.length > 0 && "perf".equals(args[0]))
        {
            System.exit(TransportPerf.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
            return;
        }
        if (args.length > 0 && "report".equals(args[0]))
        {
            System.exit(LatencyReport.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
            return;
        }
        final List<String> jmhArgs = new ArrayList<>(Arrays.asList(args));
        final boolean listing = jmhArgs.contains("-l") || jmhArgs.contains("-h") || jmhArgs.contains("-lp");
        final String why = VerbsPostPollBenchmark.unavailability();
        if (why != null && !listing)
        {
            System.out.println("# VerbsPostPollBenchmark skipped: " + why);
            jmhArgs.add("-e");
            jmhArgs.add(VerbsPostPollBenchmark.class.getSimpleName());
        }
        org.openjdk.jmh.Main.main(jmhArgs.toArray(new String[0]));
    }
}

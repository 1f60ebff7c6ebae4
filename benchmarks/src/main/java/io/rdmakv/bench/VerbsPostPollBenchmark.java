package io.rdmakv.bench;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Post and poll over the verbs transport (libibverbs through JNA) on one device, loopback between two queue pairs:
 * one read per call ({@code readSingle}: one post, polls until its completion) and 16 reads posted by one
 * {@code readBatch} call ({@code readBatch16}, reported per read), so the difference is what batching saves per
 * read in JNA crossings and doorbells. Only runs where the verbs transport is available (an HCA or SoftRoCE);
 * {@link BenchmarkMain} leaves it out with a printed reason elsewhere.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1,
    jvmArgsAppend = {BenchmarkMain.OPEN_MISC, BenchmarkMain.OPEN_NIO, BenchmarkMain.NETTY_REFLECTION})
public class VerbsPostPollBenchmark
{
    static final String TRANSPORT = "verbs";

    @Param({"64"})
    public int bytes;

    private LoopbackPair pair;

    /** Why verbs cannot be measured here, or {@code null} when it can. */
    static String unavailability()
    {
        final TransportProvider verbs = LoopbackPair.provider(TRANSPORT);
        if (verbs == null)
        {
            return "no verbs transport on the class path";
        }
        return verbs.isAvailable() ? null : verbs.unavailabilityCause();
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        final String why = unavailability();
        if (why != null)
        {
            throw new IllegalStateException("verbs benchmark skipped: " + why);
        }
        pair = new LoopbackPair(LoopbackPair.provider(TRANSPORT));
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        pair.close();
    }

    @Benchmark
    public TransportStatus readSingle()
    {
        return TcpRoundTripBenchmark.ok(pair.client().read(0, bytes));
    }

    @Benchmark
    @OperationsPerInvocation(16)
    public TransportStatus readBatch16()
    {
        return TcpRoundTripBenchmark.ok(pair.client().readBatch(16, bytes));
    }
}

package io.rdmakv.bench;

import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One round trip over the TCP transport on loopback, with the client's worker invoked by the benchmark thread:
 * a send echoed by the server ({@code pingPong}), one emulated one-sided read ({@code read}, answered by the
 * target's transport on its I/O thread), and 16 reads posted with one {@code readBatch} call. A status other than OK
 * fails the iteration, so the figures are of operations that really completed. With {@code -prof gc} the
 * {@code gc.alloc.rate.norm} line shows what one operation allocates in this JVM (client and server side together,
 * Netty's pooled buffers included).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1,
    jvmArgsAppend = {BenchmarkMain.OPEN_MISC, BenchmarkMain.OPEN_NIO, BenchmarkMain.NETTY_REFLECTION})
public class TcpRoundTripBenchmark
{
    @Param({"64", "4096"})
    public int bytes;

    private LoopbackPair pair;

    @Setup(Level.Trial)
    public void setUp()
    {
        final TransportProvider tcp = LoopbackPair.provider("tcp");
        if (tcp == null || !tcp.isAvailable())
        {
            throw new IllegalStateException("tcp transport unavailable: " +
                (tcp == null ? "not on the class path" : tcp.unavailabilityCause()));
        }
        pair = new LoopbackPair(tcp);
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        pair.close();
    }

    @Benchmark
    public TransportStatus pingPong()
    {
        return ok(pair.client().pingPong(bytes));
    }

    @Benchmark
    public TransportStatus read()
    {
        return ok(pair.client().read(0, bytes));
    }

    @Benchmark
    public TransportStatus readBatch16()
    {
        return ok(pair.client().readBatch(16, bytes));
    }

    static TransportStatus ok(final TransportStatus status)
    {
        if (status != TransportStatus.OK)
        {
            throw new IllegalStateException("operation failed: " + status.description());
        }
        return status;
    }
}

package io.rdmakv.bench;

import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import org.agrona.concurrent.SystemNanoClock;
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

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Allocate/free churn of the extent allocator, as the server's writer thread sees it under a PUT-heavy load: a fixed
 * population of live extents, each operation retires the oldest one and allocates a new one of a random size (64 B ..
 * {@code maxBytes}). Freed extents come back after the grace period, so with {@code graceMicros > 0} the reclaimer's
 * FIFO and the return of empty slabs to the page heap are part of the cost. The allocator works on arena offsets only,
 * so no memory is mapped. Run with {@code -prof gc}: the churn should not allocate.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1,
    jvmArgsAppend = {BenchmarkMain.OPEN_MISC, BenchmarkMain.OPEN_NIO, BenchmarkMain.NETTY_REFLECTION})
public class ExtentAllocatorBenchmark
{
    private static final long RANGE = 1L << 30;
    private static final int LIVE = 16_384;
    private static final int SIZES = 1 << 16;

    @Param({"0", "100"})
    public int graceMicros;

    @Param({"4096"})
    public int maxBytes;

    private ExtentAllocator allocator;
    private final long[] liveOffsets = new long[LIVE];
    private final int[] liveSizes = new int[LIVE];
    private final int[] sizes = new int[SIZES];
    private int cursor;
    private int sizeCursor;
    private long failures;

    @Setup(Level.Trial)
    public void setUp()
    {
        allocator = new ExtentAllocator(0, RANGE, ExtentAllocator.DEFAULT_PAGE_SIZE, 1 << 30,
            new EpochReclaimer(TimeUnit.MICROSECONDS.toNanos(graceMicros), new SystemNanoClock()));
        final SplittableRandom random = new SplittableRandom(17);
        for (int i = 0; i < SIZES; i++)
        {
            sizes[i] = 64 + random.nextInt(maxBytes - 63);
        }
        for (int i = 0; i < LIVE; i++)
        {
            liveSizes[i] = sizes[i];
            liveOffsets[i] = allocator.allocate(liveSizes[i]);
            if (liveOffsets[i] < 0)
            {
                throw new IllegalStateException("initial population does not fit: " + liveOffsets[i]);
            }
        }
    }

    /** Retire the oldest live extent and allocate a new one in its place; returns the new offset. */
    @Benchmark
    public long churn()
    {
        final int liveIndex = cursor;
        cursor = (liveIndex + 1) & (LIVE - 1);
        if (allocator.free(liveOffsets[liveIndex], liveSizes[liveIndex]) != ExtentAllocator.FREED)
        {
            failures++;
        }
        final int size = sizes[sizeCursor];
        sizeCursor = (sizeCursor + 1) & (SIZES - 1);
        final long offset = allocator.allocate(size);
        if (offset < 0)
        {
            failures++;
        }
        liveOffsets[liveIndex] = offset;
        liveSizes[liveIndex] = size;
        return offset;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        if (failures != 0)
        {
            // A number printed next to the result, not a failed build: the range was too small for the grace period.
            System.out.println("ExtentAllocatorBenchmark: " + failures +
                " failed allocations/frees (range too small?)");
        }
    }
}

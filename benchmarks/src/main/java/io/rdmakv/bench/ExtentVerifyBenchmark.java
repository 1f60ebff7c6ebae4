package io.rdmakv.bench;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.protocol.layout.ExtentStatus;
import io.rdmakv.protocol.layout.ValueExtentFlyweight;
import org.agrona.MutableDirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
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

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

/**
 * The reader's check of a value extent ({@link ValueExtentFlyweight#verify(byte[])}: lengths, CRC32C, key), which a
 * client runs on every one-sided GET and the server on every extent it writes. The CRC dominates, so the cost per
 * KiB is the CRC32C throughput of the memory kind the extent sits in:
 *
 * <ul>
 *   <li>{@code HEAP}: a byte array (the JDK intrinsic on the array);</li>
 *   <li>{@code DIRECT}: a direct ByteBuffer (the JDK intrinsic on the ByteBuffer);</li>
 *   <li>{@code POOL}: a partition view of a {@link PinnedArena}, as the server sees its pool;</li>
 *   <li>{@code RAW}: an {@link UnsafeBuffer} over a bare address with no ByteBuffer behind it, which can only take
 *       the table-driven Java loop (what {@code POOL} took before partitions were backed by ByteBuffers).</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1,
    jvmArgsAppend = {BenchmarkMain.OPEN_MISC, BenchmarkMain.OPEN_NIO, BenchmarkMain.NETTY_REFLECTION})
public class ExtentVerifyBenchmark
{
    /** Where the extent's bytes live. */
    public enum Memory
    {
        HEAP, DIRECT, POOL, RAW
    }

    private static final int ARENA_SIZE = 1 << 20;
    private static final int KEY_LENGTH = 16;

    @Param({"64", "1024", "4096", "65536"})
    public int valueBytes;

    @Param({"HEAP", "DIRECT", "POOL", "RAW"})
    public Memory memory;

    private final ValueExtentFlyweight extent = new ValueExtentFlyweight();
    private PinnedArena arena;
    private MutableDirectBuffer buffer;
    private byte[] key;
    private int extentLength;

    @Setup(Level.Trial)
    public void setUp()
    {
        arena = PinnedArena.map(ARENA_SIZE, PinPolicy.OFF, HugePages.NONE);
        switch (memory)
        {
            case HEAP -> buffer = new UnsafeBuffer(new byte[ARENA_SIZE]);
            case DIRECT -> buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(ARENA_SIZE));
            case POOL -> buffer = arena.partitions().partition(0);
            case RAW -> buffer = new UnsafeBuffer(arena.address(), ARENA_SIZE);
            default -> throw new IllegalStateException(String.valueOf(memory));
        }
        key = new byte[KEY_LENGTH];
        for (int i = 0; i < KEY_LENGTH; i++)
        {
            key[i] = (byte)('k' + i);
        }
        final byte[] value = new byte[valueBytes];
        for (int i = 0; i < valueBytes; i++)
        {
            value[i] = (byte)(i * 31 + 7);
        }
        extentLength = ValueExtentFlyweight.requiredLength(KEY_LENGTH, valueBytes);
        // Offset 64: extents are 64-byte aligned, but not at the start of the partition.
        extent.wrap(buffer, 64, extentLength).write(key, value, 42);
        if (extent.verify(key) != ExtentStatus.OK)
        {
            throw new IllegalStateException("extent written for the benchmark does not verify");
        }
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        arena.close();
    }

    /** Wrap, check lengths, CRC32C over header + key + value, compare the key. */
    @Benchmark
    public ExtentStatus verify()
    {
        return extent.wrap(buffer, 64, extentLength).verify(key);
    }

    /** The writer's side: recompute and store the CRC (the server does this for every PUT, in pool memory). */
    @Benchmark
    public int updateCrc()
    {
        return extent.wrap(buffer, 64, extentLength).updateCrc().crc();
    }
}

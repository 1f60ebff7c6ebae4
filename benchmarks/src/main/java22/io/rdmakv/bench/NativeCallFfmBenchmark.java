package io.rdmakv.bench;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.TimeUnit;

/**
 * The same trivial call as {@link NativeCallBenchmark} ({@code memchr(buf, 0, buf)} with the verbs shape
 * {@code int f(void *, int, void *)}) through the Foreign Function &amp; Memory API (final since JDK 22): a downcall
 * handle, and one with {@link Linker.Option#critical} (no thread-state transition, for calls that neither block nor
 * call back, which {@code ibv_poll_cq} and {@code ibv_post_send} are). Compiled only when the build runs on JDK 22+
 * ({@code benchmarks/src/main/java22}, the {@code jdk22} profile of the benchmarks pom).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"--enable-native-access=ALL-UNNAMED"})
public class NativeCallFfmBenchmark
{
    private static final FunctionDescriptor SHAPE =
        FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.ADDRESS);

    private Arena arena;
    private MemorySegment buffer;
    private MethodHandle downcall;
    private MethodHandle critical;

    @Setup(Level.Trial)
    public void setUp()
    {
        arena = Arena.ofConfined();
        buffer = arena.allocate(64, 64);
        buffer.fill((byte)0);
        final Linker linker = Linker.nativeLinker();
        final MemorySegment address = linker.defaultLookup().find(NativeCallBenchmark.FUNCTION).orElseThrow();
        downcall = linker.downcallHandle(address, SHAPE);
        critical = linker.downcallHandle(address, SHAPE, Linker.Option.critical(false));
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        arena.close();
    }

    @Benchmark
    public int ffmDowncall() throws Throwable
    {
        return (int)downcall.invokeExact(buffer, 0, buffer);
    }

    @Benchmark
    public int ffmCritical() throws Throwable
    {
        return (int)critical.invokeExact(buffer, 0, buffer);
    }
}

package io.rdmakv.bench;

import com.sun.jna.Memory;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.libc.LibCLayout;
import io.rdmakv.transport.libc.LibcCalls;
import io.rdmakv.transport.libc.NativeBindings;
import io.rdmakv.transport.verbs.ffi.VerbsLayout;
import io.rdmakv.transport.verbs.ffi.VerbsOps;
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
 * The transport's own bindings, JNA against FFM, as the data path calls them (docs/transport.md, "Native calls"):
 * <ul>
 *   <li>{@code verbsPollCq}: a bound {@link VerbsOps.PollCq} whose provider pointer, in a fake {@code ibv_context}, is
 *       glibc's {@code memchr(buf, 0, buf)} (returns at once: the crossing, not the work), as in
 *       {@link NativeCallBenchmark};</li>
 *   <li>{@code eventfdWrite}: {@link LibcCalls#eventfdWrite}, the wake-up a producer sends a parked worker: a real
 *       system call on a real (non-blocking) eventfd.</li>
 * </ul>
 * {@code binding} sets {@code rdmakv.native} in the fork before anything loads: {@code jna} on any JDK, {@code ffm} on
 * JDK 22+ with the multi-release jar ({@code -p binding=jna,ffm}); {@code auto} is what the process would choose.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.OPEN_MISC, BenchmarkMain.OPEN_NIO, "--enable-native-access=ALL-UNNAMED"})
public class NativeBindingBenchmark
{
    @Param({"auto"})
    public String binding;

    private Memory buffer;
    private Memory context;
    private VerbsOps.PollCq pollCq;
    private LibcCalls libc;
    private int eventFd;
    private long one;

    @Setup(Level.Trial)
    public void setUp()
    {
        System.setProperty(NativeBindings.PROPERTY, binding);
        System.out.println("# " + NativeBindings.description());
        buffer = new Memory(64);
        buffer.clear();
        final long memchr = Pointer.nativeValue(NativeLibrary.getInstance("c").getFunction(NativeCallBenchmark.FUNCTION));
        context = new Memory(VerbsLayout.CONTEXT_OPS_POST_RECV + 8);
        context.clear();
        context.setLong(VerbsLayout.CONTEXT_OPS_POLL_CQ, memchr);
        context.setLong(VerbsLayout.CONTEXT_OPS_POST_SEND, memchr);
        context.setLong(VerbsLayout.CONTEXT_OPS_POST_RECV, memchr);
        pollCq = VerbsOps.of(Pointer.nativeValue(context)).pollCq(Pointer.nativeValue(buffer), 0,
            Pointer.nativeValue(buffer));
        libc = NativeBindings.libc();
        eventFd = LibC.eventfd(0, LibCLayout.EFD_NONBLOCK | LibCLayout.EFD_CLOEXEC);
        if (eventFd < 0)
        {
            throw new IllegalStateException("eventfd: errno " + LibC.errno());
        }
        buffer.setLong(8, 1L);
        one = Pointer.nativeValue(buffer) + 8;
    }

    @TearDown(Level.Trial)
    public void tearDown()
    {
        LibC.close(eventFd);
    }

    @Benchmark
    public int verbsPollCq()
    {
        return pollCq.poll();
    }

    @Benchmark
    public long eventfdWrite()
    {
        return libc.eventfdWrite(eventFd, one);
    }
}

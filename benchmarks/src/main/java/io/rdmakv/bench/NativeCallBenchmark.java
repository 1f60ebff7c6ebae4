package io.rdmakv.bench;

import com.sun.jna.Function;
import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import io.rdmakv.transport.verbs.ffi.VerbsLayout;
import io.rdmakv.transport.verbs.ffi.VerbsOps;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * The per-call cost of the native binding, on any host: one trivial C function with the verbs calls' shape
 * {@code int f(void *, int, void *)} called through
 * <ul>
 *   <li>{@code jnaVerbsOps}: the verbs code's own JNA path, a {@link VerbsOps.PollCq} bound by {@link VerbsOps#pollCq}
 *       (JNA's generic dispatcher, {@code Native.invokeInt} with a reused {@code Object[]}), its function pointer read
 *       from a fake {@code ibv_context} laid out as {@link VerbsLayout} says (JNA forced with {@code rdmakv.native=jna};
 *       {@code NativeBindingBenchmark} measures the binding a JDK 22+ chooses);</li>
 *   <li>{@code jnaFunctionInvoke}: JNA's public {@link Function#invokeInt} (copies the arguments, boxes the result);</li>
 *   <li>{@code jnaDirect}: JNA direct mapping ({@link Native#register}, a {@code static native} method);</li>
 * </ul>
 * and, on JDK 22+ only, the Foreign Function &amp; Memory API in {@code NativeCallFfmBenchmark}. The function is
 * glibc's {@code memchr(buf, 0, n)} on a buffer whose first byte is 0: it returns at once, so the figure is the
 * crossing, not the work. (The pointer it returns is read as an int; it is ignored.)
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {BenchmarkMain.OPEN_MISC, BenchmarkMain.OPEN_NIO})
public class NativeCallBenchmark
{
    /** glibc's memchr: {@code void *memchr(const void *s, int c, size_t n)}, called with the verbs shape. */
    static final String FUNCTION = "memchr";

    private Memory buffer;
    private Memory context;
    private VerbsOps.PollCq pollCq;
    private Function function;
    private Object[] args;

    /** JNA direct mapping of the same function, with the verbs calls' Java types. */
    static final class Direct
    {
        static
        {
            Native.register(Direct.class, NativeLibrary.getInstance("c"));
        }

        private Direct()
        {
        }

        static native int memchr(Pointer s, int c, Pointer n);
    }

    @Setup(Level.Trial)
    public void setUp()
    {
        buffer = new Memory(64);
        buffer.clear();
        function = NativeLibrary.getInstance("c").getFunction(FUNCTION);
        final long address = Pointer.nativeValue(function);
        // A fake struct ibv_context holding only the four ops pointers VerbsOps reads.
        context = new Memory(VerbsLayout.CONTEXT_OPS_POST_RECV + 8);
        context.clear();
        context.setLong(VerbsLayout.CONTEXT_OPS_POLL_CQ, address);
        context.setLong(VerbsLayout.CONTEXT_OPS_REQ_NOTIFY_CQ, address);
        context.setLong(VerbsLayout.CONTEXT_OPS_POST_SEND, address);
        context.setLong(VerbsLayout.CONTEXT_OPS_POST_RECV, address);
        System.setProperty("rdmakv.native", "jna"); // this benchmark's figures are JNA's, on any JDK
        final VerbsOps ops = VerbsOps.of(Pointer.nativeValue(context));
        // poll_cq(cq, numEntries, wc) as the worker binds it: memchr(buf, 0, buf).
        pollCq = ops.pollCq(Pointer.nativeValue(buffer), 0, Pointer.nativeValue(buffer));
        args = new Object[] {buffer, 0, buffer};
        if (!ops.isAllocationFree())
        {
            System.out.println("# VerbsOps falls back to the allocating Function.invokeInt here");
        }
    }

    @Benchmark
    public int jnaVerbsOps()
    {
        return pollCq.poll();
    }

    @Benchmark
    public int jnaFunctionInvoke()
    {
        return function.invokeInt(args);
    }

    @Benchmark
    public int jnaDirect()
    {
        return Direct.memchr(buffer, 0, buffer);
    }
}

package io.rdmakv.cli.bench;

/**
 * The bounds {@code rdmakv bench} checks before it starts, so that an absurd option is a clear error at once rather
 * than an {@code OutOfMemoryError} after the generator filled its buffers, or a load phase that never ends.
 *
 * <p>Three kinds: fixed bounds of the generator (below), the store's own size limits ({@link KvDriver#checkSizes},
 * for rdmakv learned from the node at connect), and the JVM heap the generator's buffers need ({@link #checkHeap}).
 */
public final class BenchLimits
{
    /** Most keys: the load phase writes each once (10^9 keys of 116 bytes is 116 GB). */
    public static final long MAX_KEYS = 1_000_000_000L;
    /** Most keys with Zipfian choice, whose set-up sums a term per key (10^8: about a second). */
    public static final long MAX_ZIPFIAN_KEYS = 100_000_000L;
    /** Most connections (sockets for resp and memcached, request streams for rdmakv). */
    public static final int MAX_CONNECTIONS = 10_000;
    /** Most generator threads. */
    public static final int MAX_THREADS = 1_024;
    /** Most requests in flight per connection: the deepest endpoint queue a node accepts. */
    public static final int MAX_IN_FLIGHT = 16_384;
    /** Most requests in flight over all connections. */
    public static final long MAX_TOTAL_IN_FLIGHT = 1_000_000L;
    /** Most KvClient instances (each has a transport, a data connection and a progress thread). */
    public static final int MAX_CLIENTS = 1_024;
    /** Longest measured run, warm-up and operation timeout, in seconds. */
    public static final long MAX_DURATION_SECONDS = 7L * 24 * 3600;
    public static final long MAX_WARMUP_SECONDS = 3600;
    public static final long MAX_TIMEOUT_MILLIS = 3_600_000L;
    /** Most measured operations. */
    public static final long MAX_OPERATIONS = 1_000_000_000_000L;
    /** Share of the JVM's maximum heap the generator's buffers may take (histograms and the driver need the rest). */
    static final double HEAP_SHARE = 0.5;

    private BenchLimits()
    {
    }

    /** {@code value} in [min, max], else a BenchException naming the option and the range. */
    static void check(final String option, final long value, final long min, final long max)
    {
        if (value < min || value > max)
        {
            throw new BenchException(option + " must be between " + min + " and " + max + ", got " + value);
        }
    }

    /**
     * The heap the generator's buffers need: its fixed value variants, and for every request in flight a key, a
     * value and their encoding (the drivers copy both into a request, and a GET's answer is a value).
     */
    static long heapNeeded(final BenchSettings s)
    {
        final long perRequest = 2L * ((long)s.valueSize() + s.keySize() + 64);
        return (long)KeySpace.VALUE_VARIANTS * s.valueSize() + (long)s.connections() * s.inFlight() * perRequest;
    }

    /** Refuse settings whose buffers would not fit in {@link #HEAP_SHARE} of {@code maxHeap}. */
    static void checkHeap(final BenchSettings s, final long maxHeap)
    {
        final long needed = heapNeeded(s);
        final long allowed = (long)(maxHeap * HEAP_SHARE);
        if (needed > allowed)
        {
            throw new BenchException("--value-size " + s.valueSize() + " with " + s.connections() +
                " connection(s) x " + s.inFlight() + " in flight needs about " + mib(needed) + " MiB of heap for " +
                "the generator's buffers; this JVM may use " + mib(maxHeap) + " MiB (at most half for buffers): " +
                "lower --value-size, --connections or --inflight, or raise -Xmx (RDMAKV_JAVA_OPTS=-Xmx8g)");
        }
    }

    private static long mib(final long bytes)
    {
        return (bytes + (1 << 20) - 1) >> 20;
    }
}

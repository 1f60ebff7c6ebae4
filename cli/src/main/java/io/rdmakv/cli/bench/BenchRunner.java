package io.rdmakv.cli.bench;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;

/**
 * Runs a workload against a driver: an optional load phase (every key written once), a warm-up that is not
 * recorded, then the measured phase, each on {@code threads} generator threads that deal out {@code connections}
 * connections and send {@code inFlight} operations at a time on each (closed loop in batches, like redis-benchmark's
 * {@code -P}). Latency is
 * from issue to completion per operation, recorded in one HdrHistogram {@link Recorder} per operation type; the
 * calling thread prints a progress line once a second. Stops by itself after the duration or operation count.
 */
public final class BenchRunner
{
    private static final long HIGHEST_NANOS = TimeUnit.SECONDS.toNanos(60);
    private static final long PROGRESS_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** This process: the generator's own CPU per operation shows whether it, not the server, is the limit. */
    private static final ServerCpu SELF = ServerCpu.of(ProcessHandle.current().pid());
    private static final long TICKS_PER_SECOND = ProcessCpuTime.ticksPerSecond();

    private enum Phase
    {
        WARMUP, MEASURE, STOP
    }

    private final KvDriver driver;
    private final BenchSettings settings;
    private final PrintStream progressOut;
    /** On a terminal the progress line rewrites itself; into a file or pipe each update is its own line. */
    private final String progressStart = System.console() != null ? "\r" : "";
    private final String progressEnd = System.console() != null ? "        " : System.lineSeparator();
    private final ServerCpu serverCpu;
    private final KeySpace keySpace;
    private final ZipfianGenerator zipf;
    private final AtomicLong newest;
    private final EnumMap<OpType, Recorder> recorders = new EnumMap<>(OpType.class);
    private final EnumMap<OpType, LongAdder> errors = new EnumMap<>(OpType.class);
    private final LongAdder hits = new LongAdder();
    private final AtomicLong operationsLeft = new AtomicLong(Long.MAX_VALUE);
    /**
     * Completions recorded in the measured phase. With --ops, exactly that many are recorded: an operation a thread
     * started as warm-up while the phase turned (its start time already past the measurement's) would otherwise be
     * one more.
     */
    private final AtomicLong measuredCompletions = new AtomicLong();
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile Phase phase = Phase.WARMUP;
    private volatile long measureStartNanos;
    private volatile String firstErrorText;

    /**
     * @param serverCpu the server process to read CPU time from, or {@code null}.
     * @param progressOut where the progress line goes (standard error), or {@code null} for none.
     */
    public BenchRunner(final KvDriver driver, final BenchSettings settings, final ServerCpu serverCpu,
        final PrintStream progressOut)
    {
        this.driver = driver;
        this.settings = settings;
        this.serverCpu = serverCpu;
        this.progressOut = settings.progress() ? progressOut : null;
        // Inserts (workload D) go past the loaded keys: leave room for 100x more in the key's digits.
        this.keySpace = new KeySpace(settings.keySize(), settings.valueSize(), settings.keys() * 100);
        final boolean needsZipf = settings.zipfian() || settings.workload().readLatest();
        this.zipf = needsZipf ? new ZipfianGenerator(settings.keys(), settings.theta()) : null;
        this.newest = new AtomicLong(settings.keys() - 1);
        for (final OpType t : OpType.values())
        {
            recorders.put(t, new Recorder(HIGHEST_NANOS, 3));
            errors.put(t, new LongAdder());
        }
    }

    static Histogram newHistogram()
    {
        return new Histogram(HIGHEST_NANOS, 3);
    }

    public KeySpace keySpace()
    {
        return keySpace;
    }

    /**
     * Connect, load, warm up, measure.
     *
     * @throws BenchException when a connection fails or a generator thread dies.
     */
    public BenchResult run() throws InterruptedException
    {
        final List<DriverConnection> connections = new ArrayList<>();
        try
        {
            for (int i = 0; i < settings.connections(); i++)
            {
                connections.add(driver.connect());
            }
            long loadNanos = 0;
            if (settings.load())
            {
                loadNanos = load(connections);
            }
            return measure(connections, loadNanos);
        }
        finally
        {
            for (final DriverConnection c : connections)
            {
                c.close();
            }
        }
    }

    /** Write keys [0, keys) once, split over the connections, pipelined like the run. */
    private long load(final List<DriverConnection> connections) throws InterruptedException
    {
        final long start = System.nanoTime();
        final AtomicLong next = new AtomicLong();
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < settings.threads(); t++)
        {
            final List<DriverConnection> mine = dealt(connections, t);
            threads.add(start("rdmakv-bench-load-" + t, () -> loadKeys(mine, next)));
        }
        join(threads);
        rethrow();
        return System.nanoTime() - start;
    }

    private void loadKeys(final List<DriverConnection> mine, final AtomicLong next)
    {
        final DriverConnection.Completion completion = new DriverConnection.Completion();
        boolean more = true;
        while (more || outstanding(mine) > 0)
        {
            for (final DriverConnection c : mine)
            {
                while (c.outstanding() > 0)
                {
                    c.completeOldest(completion);
                    if (completion.error)
                    {
                        throw new BenchException("load failed: " + completion.errorText);
                    }
                }
                while (more && c.outstanding() < settings.inFlight())
                {
                    final long index = next.getAndIncrement();
                    if (index >= settings.keys())
                    {
                        more = false;
                        break;
                    }
                    c.put(OpType.INSERT, keySpace.key(index), keySpace.value(index), System.nanoTime());
                }
                c.flush();
            }
        }
    }

    private BenchResult measure(final List<DriverConnection> connections, final long loadNanos)
        throws InterruptedException
    {
        final List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < settings.threads(); t++)
        {
            final List<DriverConnection> mine = dealt(connections, t);
            final long seed = 0x5EED_0000L + t;
            threads.add(start("rdmakv-bench-" + t, () -> generate(mine, new SplittableRandom(seed))));
        }

        final EnumMap<OpType, Histogram> totals = new EnumMap<>(OpType.class);
        for (final OpType type : OpType.values())
        {
            totals.put(type, newHistogram());
        }
        final Histogram interval = newHistogram();

        // Warm-up: run, record nothing.
        final long warmupEnd = System.nanoTime() + settings.warmup().toNanos();
        while (System.nanoTime() - warmupEnd < 0 && failure.get() == null)
        {
            progress("warm-up", warmupEnd, interval, null, 0);
            sleepUntil(Math.min(warmupEnd, System.nanoTime() + PROGRESS_NANOS));
        }
        // The store's counters inside the client counters' window and around the measured phase (the driver reads
        // them through a connection of their own, not counted among the client counters).
        final Map<String, Long> countersBefore = driver.counters();
        final Map<String, Long> serverBefore = driver.serverCounters();
        final long cpuBefore = serverCpu == null ? -1 : serverCpu.cpuNanos();
        final long ownCpuBefore = SELF.cpuNanos();
        final Map<Long, Long> jvmCpuBefore = JvmThreadCpu.snapshot();
        for (final Recorder r : recorders.values())
        {
            r.reset();
        }
        if (settings.operations() > 0)
        {
            operationsLeft.set(settings.operations());
        }
        measuredCompletions.set(0);
        measureStartNanos = System.nanoTime();
        phase = Phase.MEASURE;

        final long end = settings.operations() > 0 ? Long.MAX_VALUE : measureStartNanos + settings.duration().toNanos();
        long lastProgress = measureStartNanos;
        while (failure.get() == null && (settings.operations() > 0 ? operationsLeft.get() > 0 :
            System.nanoTime() - end < 0))
        {
            sleepUntil(Math.min(end, lastProgress + PROGRESS_NANOS));
            final long now = System.nanoTime();
            interval.reset();
            for (final OpType type : OpType.values())
            {
                final Histogram h = recorders.get(type).getIntervalHistogram();
                totals.get(type).add(h);
                interval.add(h);
            }
            progress("run", end, interval, totals, now - lastProgress);
            lastProgress = now;
        }
        phase = Phase.STOP;
        join(threads);
        final long measuredNanos = System.nanoTime() - measureStartNanos;
        final long cpuAfter = serverCpu == null ? -1 : serverCpu.cpuNanos();
        final long ownCpuAfter = SELF.cpuNanos();
        final Map<Long, Long> jvmCpuAfter = JvmThreadCpu.snapshot();
        for (final OpType type : OpType.values())
        {
            totals.get(type).add(recorders.get(type).getIntervalHistogram());
        }
        if (progressOut != null && !progressStart.isEmpty())
        {
            progressOut.println();
            progressOut.flush();
        }
        rethrow();

        final EnumMap<OpType, Histogram> ran = new EnumMap<>(OpType.class);
        final EnumMap<OpType, Long> errorCounts = new EnumMap<>(OpType.class);
        for (final OpType type : OpType.values())
        {
            if (totals.get(type).getTotalCount() > 0 || errors.get(type).sum() > 0)
            {
                ran.put(type, totals.get(type));
                errorCounts.put(type, errors.get(type).sum());
            }
        }
        final Map<String, Long> serverAfter = driver.serverCounters();
        final Map<String, Long> countersAfter = driver.counters();
        final Map<String, Long> deltas = new LinkedHashMap<>();
        countersAfter.forEach((name, value) -> deltas.put(name, value - countersBefore.getOrDefault(name, 0L)));
        final Map<String, Long> serverDeltas = new LinkedHashMap<>();
        serverAfter.forEach((name, value) ->
        {
            final Long before = serverBefore.get(name);
            if (before != null)
            {
                serverDeltas.put(name, value - before);
            }
        });
        final long cpu = cpuBefore >= 0 && cpuAfter >= 0 ? cpuAfter - cpuBefore : -1;
        return new BenchResult(ran, errorCounts, hits.sum(), measuredNanos, settings.load() ? settings.keys() : 0,
            loadNanos, deltas, serverDeltas, cpu, serverCpu == null ? -1 : serverCpu.pid(),
            ownCpuBefore >= 0 && ownCpuAfter >= 0 ? ownCpuAfter - ownCpuBefore : -1,
            jvmCpuAfter.isEmpty() ? -1 : JvmThreadCpu.nanosBetween(jvmCpuBefore, jvmCpuAfter, TICKS_PER_SECOND),
            driver.describe());
    }

    /**
     * The closed loop of one generator thread, in batches per connection as redis-benchmark's {@code -P} does: a
     * connection gets {@code inFlight} operations written in one flush, and the next batch once all of them are
     * answered. The thread walks its connections in turn, draining one and refilling it at once while the others'
     * batches are in flight. Topping a connection up by one operation per answer instead would send one request per
     * system call, so a pipelined server would see a trickle of single requests and the generator would measure its
     * own write calls.
     */
    private void generate(final List<DriverConnection> mine, final SplittableRandom random)
    {
        final KeyChooser chooser = settings.zipfian() ?
            KeyChooser.zipfian(zipf, settings.keys(), random) : KeyChooser.uniform(settings.keys(), random);
        final KeyChooser latest = settings.workload().readLatest() ? KeyChooser.latest(zipf, newest, random) : null;
        final DriverConnection.Completion completion = new DriverConnection.Completion();
        for (final DriverConnection c : mine)
        {
            refill(c, random, chooser, latest);
        }
        while (phase != Phase.STOP)
        {
            for (final DriverConnection c : mine)
            {
                while (c.outstanding() > 0)
                {
                    c.completeOldest(completion);
                    record(completion);
                }
                refill(c, random, chooser, latest);
            }
        }
        for (final DriverConnection c : mine)
        {
            while (c.outstanding() > 0)
            {
                c.completeOldest(completion);
                record(completion);
            }
        }
    }

    private void refill(final DriverConnection c, final SplittableRandom random, final KeyChooser chooser,
        final KeyChooser latest)
    {
        while (c.outstanding() < settings.inFlight() && mayIssue())
        {
            issue(c, random, chooser, latest);
        }
        c.flush();
    }

    private boolean mayIssue()
    {
        if (phase == Phase.STOP)
        {
            return false;
        }
        return phase == Phase.WARMUP || settings.operations() == 0 || operationsLeft.getAndDecrement() > 0;
    }

    private void issue(final DriverConnection c, final SplittableRandom random, final KeyChooser chooser,
        final KeyChooser latest)
    {
        final OpType type = settings.workload().pick(random.nextInt(100));
        final long start = System.nanoTime();
        switch (type)
        {
            case GET -> c.get(keySpace.key(latest != null ? latest.next() : chooser.next()), start);
            case PUT ->
            {
                final long index = chooser.next();
                c.put(OpType.PUT, keySpace.key(index), keySpace.value(index + start), start);
            }
            case INSERT ->
            {
                final long index = newest.incrementAndGet();
                c.put(OpType.INSERT, keySpace.key(index), keySpace.value(index), start);
            }
            default -> throw new IllegalStateException(type.toString());
        }
    }

    private void record(final DriverConnection.Completion completion)
    {
        if (phase == Phase.WARMUP || completion.startNanos - measureStartNanos < 0 ||
            settings.operations() > 0 && measuredCompletions.incrementAndGet() > settings.operations())
        {
            return;
        }
        if (completion.error)
        {
            errors.get(completion.type).increment();
            if (firstErrorText == null)
            {
                firstErrorText = completion.errorText;
            }
            return;
        }
        if (completion.hit)
        {
            hits.increment();
        }
        recorders.get(completion.type).recordValue(
            Math.min(HIGHEST_NANOS, Math.max(0, completion.endNanos - completion.startNanos)));
    }

    /** The first error text a store answered, for the report; {@code null} if none. */
    public String firstErrorText()
    {
        return firstErrorText;
    }

    private void progress(final String label, final long endNanos, final Histogram interval,
        final EnumMap<OpType, Histogram> totals, final long intervalNanos)
    {
        if (progressOut == null)
        {
            return;
        }
        final double left = Math.max(0, (endNanos - System.nanoTime()) / 1e9);
        if (totals == null)
        {
            progressOut.printf(Locale.ROOT, "%s[%s] %.0f s left%s", progressStart, label, left, progressEnd);
        }
        else
        {
            final Histogram all = newHistogram();
            totals.values().forEach(all::add);
            final double rate = intervalNanos <= 0 ? 0 : interval.getTotalCount() * 1e9 / intervalNanos;
            final long errorsSoFar = errors.values().stream().mapToLong(LongAdder::sum).sum();
            final String remaining = settings.operations() > 0 ?
                String.format(Locale.ROOT, "%,d ops left", Math.max(0, operationsLeft.get())) :
                String.format(Locale.ROOT, "%.0f s left", left);
            progressOut.printf(Locale.ROOT, "%s[%s] %,12.0f ops/s   p99 so far %,9.1f us   errors %d   %s%s",
                progressStart, label, rate, all.getValueAtPercentile(99) / 1000.0, errorsSoFar, remaining,
                progressEnd);
        }
        progressOut.flush();
    }

    private static long outstanding(final List<DriverConnection> connections)
    {
        long n = 0;
        for (final DriverConnection c : connections)
        {
            n += c.outstanding();
        }
        return n;
    }

    private List<DriverConnection> dealt(final List<DriverConnection> all, final int thread)
    {
        final List<DriverConnection> mine = new ArrayList<>();
        for (int i = thread; i < all.size(); i += settings.threads())
        {
            mine.add(all.get(i));
        }
        return mine;
    }

    private Thread start(final String name, final Runnable body)
    {
        final Thread thread = new Thread(() ->
        {
            try
            {
                body.run();
            }
            catch (final Throwable t)
            {
                failure.compareAndSet(null, t);
                phase = Phase.STOP;
            }
        }, name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void join(final List<Thread> threads) throws InterruptedException
    {
        for (final Thread t : threads)
        {
            // Every operation completes or fails within the drivers' timeouts; this bound is a last resort.
            t.join(TimeUnit.MINUTES.toMillis(2));
            if (t.isAlive())
            {
                phase = Phase.STOP;
                throw new BenchException("generator thread " + t.getName() + " did not stop within 2 minutes");
            }
        }
    }

    private void rethrow()
    {
        final Throwable t = failure.get();
        if (t instanceof BenchException be)
        {
            throw be;
        }
        if (t != null)
        {
            throw new BenchException("generator failed: " + t, t);
        }
    }

    private static void sleepUntil(final long deadlineNanos) throws InterruptedException
    {
        final long nanos = deadlineNanos - System.nanoTime();
        if (nanos > 0)
        {
            TimeUnit.NANOSECONDS.sleep(nanos);
        }
    }
}

package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import org.HdrHistogram.Histogram;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The demo's load and mixed workload against any {@link KvClient}: load {@code keys} keys, then {@code threads}
 * threads run GETs and PUTs ({@code getPercent} GETs) over random keys for {@code durationMillis}, timing each
 * operation into HdrHistograms. Every GET is checked: a value must exist and must belong to its key (values begin
 * with their key), so a foreign or torn value would be counted as an error, not as throughput.
 */
final class DemoWorkload
{
    /** Latencies recorded up to one minute, three significant digits. */
    private static final long HIGHEST_TRACKABLE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final KvClient client;
    private final int keys;
    private final int valueSize;

    DemoWorkload(final KvClient client, final int keys, final int valueSize)
    {
        this.client = client;
        this.keys = keys;
        this.valueSize = valueSize;
    }

    /** PUT every key once, {@code window} requests in flight; returns the elapsed nanoseconds. */
    long load(final int window)
    {
        final long start = System.nanoTime();
        final List<CompletableFuture<Void>> inFlight = new ArrayList<>(window);
        for (int i = 0; i < keys; i++)
        {
            inFlight.add(client.putAsync(key(i), value(i, 0)));
            if (inFlight.size() == window)
            {
                inFlight.forEach(CompletableFuture::join);
                inFlight.clear();
            }
        }
        inFlight.forEach(CompletableFuture::join);
        return System.nanoTime() - start;
    }

    /** Run the mixed workload; blocks for about {@code durationMillis}. */
    Result run(final int threads, final long durationMillis, final int getPercent)
    {
        final Histogram gets = new Histogram(HIGHEST_TRACKABLE_NANOS, 3);
        final Histogram puts = new Histogram(HIGHEST_TRACKABLE_NANOS, 3);
        final AtomicLong errors = new AtomicLong();
        final List<String> firstErrors = java.util.Collections.synchronizedList(new ArrayList<>());
        final List<Thread> workers = new ArrayList<>();
        final List<Histogram[]> perThread = new ArrayList<>();
        final long start = System.nanoTime();
        final long end = start + TimeUnit.MILLISECONDS.toNanos(durationMillis);
        for (int t = 0; t < threads; t++)
        {
            final Histogram[] h = {new Histogram(HIGHEST_TRACKABLE_NANOS, 3), new Histogram(HIGHEST_TRACKABLE_NANOS, 3)};
            perThread.add(h);
            final Thread worker = new Thread(() -> loop(end, getPercent, h[0], h[1], errors, firstErrors),
                "rdmakv-demo-" + t);
            workers.add(worker);
            worker.start();
        }
        for (final Thread worker : workers)
        {
            try
            {
                worker.join();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
        }
        final long elapsed = System.nanoTime() - start;
        for (final Histogram[] h : perThread)
        {
            gets.add(h[0]);
            puts.add(h[1]);
        }
        return new Result(gets, puts, elapsed, errors.get(), List.copyOf(firstErrors));
    }

    private void loop(final long end, final int getPercent, final Histogram gets, final Histogram puts,
        final AtomicLong errors, final List<String> firstErrors)
    {
        final ThreadLocalRandom random = ThreadLocalRandom.current();
        long sequence = 0;
        while (System.nanoTime() - end < 0)
        {
            final int k = random.nextInt(keys);
            final byte[] key = key(k);
            try
            {
                if (random.nextInt(100) < getPercent)
                {
                    final long t0 = System.nanoTime();
                    final byte[] value = client.get(key);
                    gets.recordValue(Math.min(System.nanoTime() - t0, HIGHEST_TRACKABLE_NANOS));
                    if (value == null || !belongsTo(value, key))
                    {
                        errors.incrementAndGet();
                        note(firstErrors, value == null ? "GET " + k + ": missing" : "GET " + k + ": foreign value");
                    }
                }
                else
                {
                    final byte[] value = value(k, ++sequence);
                    final long t0 = System.nanoTime();
                    client.put(key, value);
                    puts.recordValue(Math.min(System.nanoTime() - t0, HIGHEST_TRACKABLE_NANOS));
                }
            }
            catch (final RuntimeException ex)
            {
                errors.incrementAndGet();
                note(firstErrors, ex.toString());
            }
        }
    }

    private static void note(final List<String> firstErrors, final String error)
    {
        if (firstErrors.size() < 5)
        {
            firstErrors.add(error);
        }
    }

    static byte[] key(final int i)
    {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /** {@code key|sequence|} padded with a repeating pattern to the value size. */
    byte[] value(final int i, final long sequence)
    {
        final byte[] prefix = ("key-" + i + "|" + sequence + "|").getBytes(StandardCharsets.UTF_8);
        final byte[] value = new byte[Math.max(valueSize, prefix.length)];
        System.arraycopy(prefix, 0, value, 0, prefix.length);
        for (int j = prefix.length; j < value.length; j++)
        {
            value[j] = (byte)('a' + (j % 26));
        }
        return value;
    }

    private static boolean belongsTo(final byte[] value, final byte[] key)
    {
        if (value.length <= key.length || value[key.length] != '|')
        {
            return false;
        }
        for (int i = 0; i < key.length; i++)
        {
            if (value[i] != key[i])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * What the workload measured.
     *
     * @param gets         GET latencies in nanoseconds.
     * @param puts         PUT latencies in nanoseconds.
     * @param elapsedNanos wall time of the run.
     * @param errors       failed operations and wrong GET results.
     * @param firstErrors  up to five of them, described.
     */
    record Result(Histogram gets, Histogram puts, long elapsedNanos, long errors, List<String> firstErrors)
    {
        long operations()
        {
            return gets.getTotalCount() + puts.getTotalCount();
        }

        double opsPerSecond()
        {
            return operations() * 1e9 / Math.max(1, elapsedNanos);
        }
    }
}

package io.rdmakv.it.e2e;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvStats;
import io.rdmakv.it.support.SelfCheckingValue;
import io.rdmakv.it.support.SelfCheckingValue.Verdict;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;
import java.util.function.Predicate;

/**
 * Writers overwrite a small set of hot keys with {@link SelfCheckingValue}s of changing sizes (so extents of
 * several size classes are freed and reused) while readers GET the same keys; every value a reader gets is checked:
 * it must be intact, written for that key, and with a sequence number a writer actually sent for it.
 *
 * <p>Each key has exactly one writer, which publishes the sequence it is about to send before sending it, so
 * "sent" is an upper bound for any value that can legitimately be read; each writer's PUTs of a key are sequential,
 * so a reader thread that sees a sequence lower than one it saw before has seen time go backwards (a regression). A
 * reader's verdicts are counted, never thrown, so the run reports every escape, not just the first.
 */
final class TornReadWorkload
{
    /** Outcome of a run. */
    record Result(long gets, long puts, long undetected, long absent, long regressions, long tornRetries,
        long fallbacks, long oneSidedHits, long misses, long missLookups, long cacheHits, long cacheMisses,
        long cacheInvalidations, String pool, List<String> examples)
    {
        String summary()
        {
            return "gets=" + gets + " puts=" + puts + " undetected=" + undetected + " absent=" + absent +
                " sequenceRegressions=" + regressions + " tornReadsDetectedAndRetried=" + tornRetries +
                " fallbacksToRpc=" + fallbacks + " oneSidedHits=" + oneSidedHits + " definitiveMisses=" + misses +
                " missLookups=" + missLookups + " cacheHits(singleRead)=" + cacheHits + " cacheMisses=" +
                cacheMisses + " cacheInvalidations=" + cacheInvalidations + " node[" + pool + "]" +
                (examples.isEmpty() ? "" : " examples=" + examples);
        }
    }

    private final int keyCount;
    private final int writers;
    private final int readers;
    private final int minValueBytes;
    private final int maxValueBytes;

    TornReadWorkload(final int keyCount, final int writers, final int readers, final int minValueBytes,
        final int maxValueBytes)
    {
        this.keyCount = keyCount;
        this.writers = writers;
        this.readers = readers;
        this.minValueBytes = minValueBytes;
        this.maxValueBytes = maxValueBytes;
    }

    static byte[] key(final int i)
    {
        return ("torn/key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Run until {@code minGets} GETs were done and {@code minDuration} passed, and then either {@code stopWhen}
     * reports true or {@code maxDuration} passed.
     *
     * @param stopWhen checked about every 200 ms with the reader client's current statistics: the counts the test
     *                 needs to have moved (the maximum duration only bounds a run where they never do).
     */
    Result run(final KvClient writerClient, final KvClient readerClient, final long minGets, final Duration minDuration,
        final Duration maxDuration, final Predicate<KvStats> stopWhen) throws InterruptedException
    {
        final AtomicLongArray sent = new AtomicLongArray(keyCount);
        final byte[][] keys = new byte[keyCount][];
        for (int k = 0; k < keyCount; k++)
        {
            keys[k] = key(k);
            writerClient.put(keys[k], SelfCheckingValue.encode(keys[k], 0, minValueBytes));
        }

        final AtomicBoolean stop = new AtomicBoolean();
        final AtomicLong gets = new AtomicLong();
        final AtomicLong puts = new AtomicLong();
        final AtomicLong undetected = new AtomicLong();
        final AtomicLong absent = new AtomicLong();
        final AtomicLong regressions = new AtomicLong();
        final ConcurrentLinkedQueue<String> examples = new ConcurrentLinkedQueue<>();
        final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        final List<Thread> threads = new ArrayList<>();

        for (int w = 0; w < writers; w++)
        {
            final int writer = w;
            threads.add(new Thread(() ->
            {
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                try
                {
                    while (!stop.get())
                    {
                        for (int k = writer; k < keyCount && !stop.get(); k += writers)
                        {
                            final long seq = sent.get(k) + 1;
                            sent.set(k, seq); // published before the put: an upper bound for readers
                            final int size = minValueBytes + random.nextInt(maxValueBytes - minValueBytes + 1);
                            writerClient.put(keys[k], SelfCheckingValue.encode(keys[k], seq, size));
                            puts.incrementAndGet();
                        }
                    }
                }
                catch (final Throwable t)
                {
                    failures.add(t);
                    stop.set(true);
                }
            }, "torn-writer-" + w));
        }

        for (int r = 0; r < readers; r++)
        {
            threads.add(new Thread(() ->
            {
                final long[] lastSeen = new long[keyCount];
                final ThreadLocalRandom random = ThreadLocalRandom.current();
                try
                {
                    while (!stop.get())
                    {
                        final int k = random.nextInt(keyCount);
                        final byte[] value = readerClient.get(keys[k]);
                        final long bound = sent.get(k);
                        gets.incrementAndGet();
                        if (value == null)
                        {
                            absent.incrementAndGet(); // never legitimate: every key always has a value
                            note(examples, "key " + k + ": absent");
                            continue;
                        }
                        final Verdict verdict = SelfCheckingValue.check(keys[k], value);
                        if (verdict != Verdict.OK)
                        {
                            undetected.incrementAndGet();
                            note(examples, "key " + k + ": " + verdict + " (" + value.length + " bytes)");
                            continue;
                        }
                        final long seq = SelfCheckingValue.sequence(value);
                        if (seq > bound)
                        {
                            undetected.incrementAndGet();
                            note(examples, "key " + k + ": sequence " + seq + " never sent (sent up to " + bound + ")");
                        }
                        if (seq < lastSeen[k])
                        {
                            regressions.incrementAndGet();
                        }
                        lastSeen[k] = Math.max(lastSeen[k], seq);
                    }
                }
                catch (final Throwable t)
                {
                    failures.add(t);
                    stop.set(true);
                }
            }, "torn-reader-" + r));
        }

        final long start = System.nanoTime();
        threads.forEach(Thread::start);
        final LongSupplier elapsedMs = () -> (System.nanoTime() - start) / 1_000_000;
        while (!stop.get())
        {
            Thread.sleep(200);
            final boolean minimumDone = gets.get() >= minGets && elapsedMs.getAsLong() >= minDuration.toMillis();
            if (elapsedMs.getAsLong() >= maxDuration.toMillis() ||
                minimumDone && stopWhen.test(readerClient.stats()))
            {
                stop.set(true);
            }
        }
        for (final Thread t : threads)
        {
            t.join(30_000);
            if (t.isAlive())
            {
                throw new AssertionError(t.getName() + " did not stop within 30 s");
            }
        }
        if (!failures.isEmpty())
        {
            final AssertionError error = new AssertionError("a workload thread failed: " + failures.peek());
            failures.forEach(error::addSuppressed);
            throw error;
        }
        final KvStats stats = readerClient.stats();
        return new Result(gets.get(), puts.get(), undetected.get(), absent.get(), regressions.get(),
            counter(stats, ClientCounter.GET_TORN_RETRIES), counter(stats, ClientCounter.GET_FALLBACKS),
            counter(stats, ClientCounter.GET_ONE_SIDED_HITS), counter(stats, ClientCounter.GET_MISSES),
            counter(stats, ClientCounter.GET_MISS_LOOKUPS), counter(stats, ClientCounter.GET_CACHE_HITS),
            counter(stats, ClientCounter.GET_CACHE_MISSES), counter(stats, ClientCounter.GET_CACHE_INVALIDATIONS),
            poolCounters(stats), List.copyOf(examples));
    }

    private static long counter(final KvStats stats, final ClientCounter counter)
    {
        return stats.client(counter);
    }

    private static String poolCounters(final KvStats stats)
    {
        final StringBuilder sb = new StringBuilder();
        stats.nodes().values().forEach(node -> node.forEach((name, value) ->
        {
            if (name.startsWith("pool.") || name.startsWith("gets.rpc"))
            {
                sb.append(sb.length() == 0 ? "" : " ").append(name).append('=').append(value);
            }
        }));
        return sb.toString();
    }

    private static void note(final ConcurrentLinkedQueue<String> examples, final String example)
    {
        if (examples.size() < 10)
        {
            examples.add(example);
        }
    }
}

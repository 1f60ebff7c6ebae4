package io.rdmakv.it.support.history;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.Versioned;
import io.rdmakv.client.WriteResult;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Clients doing compare-and-set on a few keys and increments on a few counters while a test injects faults (issue 32),
 * every call recorded in a {@link HistoryRecorder} with its answer: {@code getWithVersion}, {@code putIfAbsent},
 * {@code replace(key, version, value)}, {@code delete(key, version)} on keys {@code c0..}, and {@code increment} and
 * GET on counters {@code n0..}. Every value written is unique, so a worker knows which value a version names: the one
 * it read with it, or wrote and got it for; a replace or conditional delete is recorded as a condition on that value.
 * A worker that knows no version of a key reads one first. Any error is recorded as a timeout (the call may or may not
 * have taken effect); a worker whose client failed builds a new one. Each worker is a sequential process.
 */
public final class CasWorkload implements AutoCloseable
{
    private final HistoryRecorder recorder;
    private final Supplier<KvClient> clients;
    private final List<String> keys;
    private final List<String> counterKeys;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong applied = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final Map<ClientCounter, Long> counters = new ConcurrentHashMap<>();

    /** What a worker last learnt of a key: a value and the version that names it. */
    private record Known(String value, long version)
    {
    }

    /**
     * Start {@code workers} threads on {@code keyCount} compare-and-set keys and {@code counterCount} counters.
     *
     * @param clients builds a client (called again after a client failed).
     */
    public CasWorkload(final HistoryRecorder recorder, final Supplier<KvClient> clients, final int workers,
        final int keyCount, final int counterCount)
    {
        this.recorder = recorder;
        this.clients = clients;
        final List<String> k = new ArrayList<>();
        for (int i = 0; i < keyCount; i++)
        {
            k.add("c" + i);
        }
        this.keys = List.copyOf(k);
        final List<String> n = new ArrayList<>();
        for (int i = 0; i < counterCount; i++)
        {
            n.add("n" + i);
        }
        this.counterKeys = List.copyOf(n);
        for (int w = 0; w < workers; w++)
        {
            final int process = w;
            final Thread t = new Thread(() -> run(process), "cas-workload-" + w);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** Operations answered so far (conditions refused included). */
    public long okCount()
    {
        return ok.get();
    }

    /** Conditional writes answered applied. */
    public long appliedCount()
    {
        return applied.get();
    }

    /** Conditional writes answered refused. */
    public long refusedCount()
    {
        return refused.get();
    }

    /** Operations that ended in an error or timeout. */
    public long errorCount()
    {
        return errors.get();
    }

    /** A client counter summed over the clients closed so far (all, after close()). */
    public long counter(final ClientCounter counter)
    {
        return counters.getOrDefault(counter, 0L);
    }

    /** Wait until at least {@code count} more operations were answered, or {@code timeoutMillis} passed. */
    public boolean awaitOk(final long count, final long timeoutMillis)
    {
        final long target = ok.get() + count;
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (ok.get() < target)
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5));
        }
        return true;
    }

    /** Stop the workers and wait for them (each finishes or times out its current call). */
    @Override
    public void close()
    {
        running.set(false);
        for (final Thread t : threads)
        {
            try
            {
                t.join(TimeUnit.SECONDS.toMillis(120));
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void run(final int process)
    {
        final SplittableRandom random = new SplittableRandom(process * 104_729L + 31);
        final Map<String, Known> known = new HashMap<>();
        KvClient client = null;
        long sequence = 0;
        while (running.get())
        {
            if (client == null)
            {
                client = connect();
                if (client == null)
                {
                    continue;
                }
            }
            try
            {
                final double draw = random.nextDouble();
                if (draw < 0.25)
                {
                    counterStep(client, process, counterKeys.get(random.nextInt(counterKeys.size())), random);
                    continue;
                }
                final String key = keys.get(random.nextInt(keys.size()));
                final Known k = known.get(key);
                final String value = "c" + process + "-" + sequence++;
                if (k == null || draw < 0.4)
                {
                    read(client, process, key, known);
                }
                else if (k.value() == null)
                {
                    putIfAbsent(client, process, key, value, known);
                }
                else if (draw < 0.85)
                {
                    replace(client, process, key, k, value, known);
                }
                else
                {
                    deleteIf(client, process, key, k, known);
                }
            }
            catch (final KvException ex)
            {
                client = failed(client, ex);
                known.clear();
            }
        }
        if (client != null)
        {
            closeCounting(client);
        }
    }

    private void read(final KvClient client, final int process, final String key, final Map<String, Known> known)
    {
        final int op = recorder.invokeGet(process, key);
        final Versioned v;
        try
        {
            v = client.getWithVersion(bytes(key));
        }
        catch (final KvException ex)
        {
            recorder.timeout(op);
            throw ex;
        }
        final String value = v == null ? null : new String(v.value(), StandardCharsets.UTF_8);
        recorder.okRead(op, value);
        ok.incrementAndGet();
        known.put(key, new Known(value, v == null ? 0 : v.version()));
    }

    private void putIfAbsent(final KvClient client, final int process, final String key, final String value,
        final Map<String, Known> known)
    {
        final int op = recorder.invokePutIfAbsent(process, key, value);
        final WriteResult r = answer(op, () -> client.putIfAbsent(bytes(key), bytes(value)));
        decided(op, r, key, value, known);
    }

    private void replace(final KvClient client, final int process, final String key, final Known k, final String value,
        final Map<String, Known> known)
    {
        final int op = recorder.invokeReplace(process, key, k.value(), value);
        final WriteResult r = answer(op, () -> client.replace(bytes(key), k.version(), bytes(value)));
        decided(op, r, key, value, known);
    }

    private void deleteIf(final KvClient client, final int process, final String key, final Known k,
        final Map<String, Known> known)
    {
        final int op = recorder.invokeDeleteIf(process, key, k.value());
        final WriteResult r = answer(op, () -> client.delete(bytes(key), k.version()));
        decided(op, r, key, null, known);
    }

    private void decided(final int op, final WriteResult r, final String key, final String value,
        final Map<String, Known> known)
    {
        recorder.okConditional(op, r.applied());
        ok.incrementAndGet();
        if (r.applied())
        {
            applied.incrementAndGet();
            // After an applied conditional delete the key is absent: the next write of it is a putIfAbsent.
            known.put(key, new Known(value, value == null ? 0 : r.version()));
        }
        else
        {
            refused.incrementAndGet();
            known.remove(key); // the present version names a value this worker does not know: read it first
        }
    }

    private void counterStep(final KvClient client, final int process, final String key,
        final SplittableRandom random)
    {
        if (random.nextBoolean())
        {
            final int op = recorder.invokeGet(process, key);
            final byte[] value;
            try
            {
                value = client.get(bytes(key));
            }
            catch (final KvException ex)
            {
                recorder.timeout(op);
                throw ex;
            }
            recorder.okRead(op, value == null ? null : new String(value, StandardCharsets.UTF_8));
            ok.incrementAndGet();
            return;
        }
        final long delta = 1 + random.nextInt(3);
        final int op = recorder.invokeIncrement(process, key, delta);
        final long result;
        try
        {
            result = client.increment(bytes(key), delta);
        }
        catch (final KvException ex)
        {
            recorder.timeout(op);
            throw ex;
        }
        recorder.okIncrement(op, result);
        ok.incrementAndGet();
    }

    private WriteResult answer(final int op, final Supplier<WriteResult> call)
    {
        try
        {
            return call.get();
        }
        catch (final KvException ex)
        {
            recorder.timeout(op);
            throw ex;
        }
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private void closeCounting(final KvClient client)
    {
        client.diagnostics().counters().forEach((counter, value) -> counters.merge(counter, value, Long::sum));
        client.close();
    }

    private KvClient connect()
    {
        try
        {
            return clients.get();
        }
        catch (final KvException ex)
        {
            // The node is down or not ready: try again shortly (a workload's pace, not a test's assertion).
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            return null;
        }
    }

    private KvClient failed(final KvClient client, final KvException ex)
    {
        errors.incrementAndGet();
        if (ex.error() == KvError.TIMED_OUT || ex.error() == KvError.CONNECTION_FAILED || ex.error() == KvError.CLOSED)
        {
            closeCounting(client);
            return null;
        }
        return client;
    }
}

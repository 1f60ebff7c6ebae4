package io.rdmakv.it.support.history;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
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
 * Clients doing PUTs (unique values) and GETs on a few keys while a test injects faults, every call recorded in a
 * {@link HistoryRecorder}: an answer is OK, NOT_FOUND reads as absent, and any error is recorded as a timeout (the
 * call may or may not have taken effect; the checker allows both). A worker whose client failed builds a new one
 * (the node may have been restarted or replaced). Each worker is a sequential process of the history.
 */
public final class RegisterWorkload implements AutoCloseable
{
    private final HistoryRecorder recorder;
    private final Supplier<KvClient> clients;
    private final List<String> keys;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong ok = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong attempts = new AtomicLong();
    private static final long READER_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

    /** Every client counter, summed over the clients closed so far. */
    private final Map<ClientCounter, Long> counters = new ConcurrentHashMap<>();

    /**
     * Start {@code workers} threads.
     *
     * @param clients  builds a client (called again after a client failed).
     * @param keyCount keys {@code k0..k(n-1)}; few keys make many operations per key, which is what the checker tests.
     * @param putShare fraction of operations that are PUTs (the rest GETs).
     */
    public RegisterWorkload(final HistoryRecorder recorder, final Supplier<KvClient> clients, final int workers,
        final int keyCount, final double putShare)
    {
        this(recorder, clients, workers, 0, keyCount, putShare);
    }

    /**
     * Start {@code workers} threads of mixed operations and {@code readers} that only GET (processes numbered after
     * the workers): a reader never waits in a PUT to a stopped node, so it keeps reading through a fault.
     *
     * @param clients  builds a client (called again after a client failed).
     * @param keyCount keys {@code k0..k(n-1)}; few keys make many operations per key, which is what the checker tests.
     * @param putShare fraction of the workers' operations that are PUTs (the rest GETs).
     */
    public RegisterWorkload(final HistoryRecorder recorder, final Supplier<KvClient> clients, final int workers,
        final int readers, final int keyCount, final double putShare)
    {
        this(recorder, clients, workers, readers, keyCount, putShare, 0.0);
    }

    /**
     * As above, with {@code deleteShare} of the workers' operations DELETEs, each recorded with its answer (found or
     * absent), so a retried DELETE answered differently from its first attempt fails the check.
     */
    public RegisterWorkload(final HistoryRecorder recorder, final Supplier<KvClient> clients, final int workers,
        final int readers, final int keyCount, final double putShare, final double deleteShare)
    {
        if (putShare < 0 || deleteShare < 0 || putShare + deleteShare > 1.0)
        {
            throw new IllegalArgumentException("shares of PUT " + putShare + " and DELETE " + deleteShare);
        }
        this.recorder = recorder;
        this.clients = clients;
        final List<String> k = new ArrayList<>();
        for (int i = 0; i < keyCount; i++)
        {
            k.add("k" + i);
        }
        this.keys = List.copyOf(k);
        for (int w = 0; w < workers + readers; w++)
        {
            final int process = w;
            final double share = w < workers ? putShare : 0.0;
            final double deletes = w < workers ? deleteShare : 0.0;
            final Thread t = new Thread(() -> run(process, share, deletes), "register-workload-" + w);
            t.setDaemon(true);
            threads.add(t);
            t.start();
        }
    }

    /** The keys the workers use ({@code k0..k(n-1)}). */
    public List<String> keys()
    {
        return keys;
    }

    /** Operations answered so far (OK or NOT_FOUND). */
    public long okCount()
    {
        return ok.get();
    }

    /** GETs answered from a pool by one-sided reads, summed over the clients closed so far (all, after close()). */
    public long oneSidedHits()
    {
        return counter(ClientCounter.GET_ONE_SIDED_HITS);
    }

    /** A client counter summed over the clients closed so far (all, after close()). */
    public long counter(final ClientCounter counter)
    {
        return counters.getOrDefault(counter, 0L);
    }

    /** Operations that ended in an error or timeout. */
    public long errorCount()
    {
        return errors.get();
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

    /** Wait until at least {@code count} more operations failed, or {@code timeoutMillis} passed. */
    public boolean awaitErrors(final long count, final long timeoutMillis)
    {
        final long target = errors.get() + count;
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (errors.get() < target)
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

    private void run(final int process, final double putShare, final double deleteShare)
    {
        final SplittableRandom random = new SplittableRandom(process * 7919L + 17);
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
            if (putShare == 0.0 && deleteShare == 0.0)
            {
                // A reader's pace: one GET per READER_PAUSE, else one-sided reads (a microsecond each on shm) would
                // fill the history with millions of operations.
                LockSupport.parkNanos(READER_PAUSE_NANOS);
            }
            final String key = keys.get(random.nextInt(keys.size()));
            final byte[] keyBytes = key.getBytes(StandardCharsets.UTF_8);
            attempts.incrementAndGet();
            final double draw = random.nextDouble();
            if (draw >= putShare && draw < putShare + deleteShare)
            {
                final int op = recorder.invokeDelete(process, key);
                try
                {
                    recorder.okDelete(op, client.delete(keyBytes));
                    ok.incrementAndGet();
                }
                catch (final KvException ex)
                {
                    recorder.timeout(op);
                    client = failed(client, ex);
                }
            }
            else if (draw < putShare)
            {
                final String value = "p" + process + "-" + sequence++;
                final int op = recorder.invokePut(process, key, value);
                try
                {
                    client.put(keyBytes, value.getBytes(StandardCharsets.UTF_8));
                    recorder.ok(op);
                    ok.incrementAndGet();
                }
                catch (final KvException ex)
                {
                    recorder.timeout(op);
                    client = failed(client, ex);
                }
            }
            else
            {
                final int op = recorder.invokeGet(process, key);
                try
                {
                    final byte[] value = client.get(keyBytes);
                    recorder.okRead(op, value == null ? null : new String(value, StandardCharsets.UTF_8));
                    ok.incrementAndGet();
                }
                catch (final KvException ex)
                {
                    recorder.timeout(op);
                    client = failed(client, ex);
                }
            }
        }
        if (client != null)
        {
            closeCounting(client);
        }
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

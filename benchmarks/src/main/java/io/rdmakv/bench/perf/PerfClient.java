package io.rdmakv.bench.perf;

import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.EndpointHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.Worker;
import org.HdrHistogram.Histogram;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The active side of the baseline: one endpoint to a {@link PerfServer}, whose worker is progressed by the thread
 * that calls this class (like perftest's busy-polling client), so a measured operation is post + progress until its
 * completion, with nothing else in between. Single-threaded; no allocation per operation.
 */
public final class PerfClient implements AutoCloseable
{
    /** The longest a single operation or the connection may take before the run is abandoned. */
    static final long OPERATION_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The most reads {@link #readBatch} posts at once. */
    public static final int MAX_BATCH = 64;

    private final Worker worker;
    private final Endpoint endpoint;
    private final Handler handler;
    private final ReadCompletion completion = new ReadCompletion();
    private final UnsafeBuffer destination;
    private final UnsafeBuffer message;
    private final int maxBytes;
    private final Endpoint.ReadRequest[] batch = new Endpoint.ReadRequest[MAX_BATCH];

    private PerfClient(final Worker worker, final Endpoint endpoint, final Handler handler, final int maxBytes)
    {
        this.worker = worker;
        this.endpoint = endpoint;
        this.handler = handler;
        this.maxBytes = maxBytes;
        this.destination = new UnsafeBuffer(ByteBuffer.allocateDirect(maxBytes));
        this.message = new UnsafeBuffer(ByteBuffer.allocateDirect(maxBytes));
        for (int i = 0; i < MAX_BATCH; i++)
        {
            batch[i] = new Endpoint.ReadRequest();
        }
    }

    /**
     * Connect and wait for the server's {@link PerfHello}.
     *
     * @param maxBytes the largest read or message this client will use.
     * @throws PerfException when the connection or the hello does not arrive within the timeout.
     */
    public static PerfClient connect(final Transport transport, final InetSocketAddress server, final int maxBytes)
    {
        final Worker worker = transport.createWorker("perf-client");
        final Handler handler = new Handler();
        try
        {
            final CompletableFuture<Endpoint> future = worker.connect(server, handler);
            final long deadline = System.nanoTime() + OPERATION_TIMEOUT_NANOS;
            while (!future.isDone() || handler.remoteKey == null)
            {
                progress(worker);
                if (System.nanoTime() - deadline > 0)
                {
                    throw new PerfException(future.isDone() ?
                        "connected to " + server + " but no remote key arrived: is it a perf server?" :
                        "could not connect to " + server + " within " + Duration.ofNanos(OPERATION_TIMEOUT_NANOS));
                }
                if (future.isCompletedExceptionally())
                {
                    future.join();
                }
            }
            return new PerfClient(worker, future.join(), handler, maxBytes);
        }
        catch (final java.util.concurrent.CompletionException ex)
        {
            worker.close();
            final Throwable cause = ex.getCause() instanceof TransportException te ? te : ex;
            throw new PerfException("could not connect to " + server + ": " + cause.getMessage());
        }
        catch (final RuntimeException ex)
        {
            worker.close();
            throw ex;
        }
    }

    public RemoteKey remoteKey()
    {
        return handler.remoteKey;
    }

    public Endpoint endpoint()
    {
        return endpoint;
    }

    public Worker worker()
    {
        return worker;
    }

    /** The read destination (valid after a read completed OK); for checking what was read. */
    public DirectBuffer destination()
    {
        return destination;
    }

    /**
     * One read of {@code length} bytes at {@code offset} in the server's region, progressing until it completes.
     *
     * @return the completion's status, or the refusal's.
     */
    public TransportStatus read(final long offset, final int length)
    {
        final int before = completion.completed;
        final long id = endpoint.read(handler.remoteKey.baseAddress() + offset, handler.remoteKey, length,
            destination, 0, completion);
        if (id < 0)
        {
            return TransportStatus.fromSentinel(id);
        }
        long spins = 0;
        final long start = System.nanoTime();
        while (completion.completed == before)
        {
            progress(worker);
            if ((++spins & 0xFFF) == 0 && System.nanoTime() - start > OPERATION_TIMEOUT_NANOS)
            {
                return TransportStatus.TIMED_OUT;
            }
        }
        return completion.lastStatus;
    }

    /**
     * {@code count} reads of {@code length} bytes posted together through {@link Endpoint#readBatch} (one doorbell
     * where the transport batches), progressing until all have completed.
     *
     * @return OK, or the status of a refusal or of the last failed completion.
     */
    public TransportStatus readBatch(final int count, final int length)
    {
        if (count > batch.length)
        {
            return TransportStatus.MESSAGE_TOO_LARGE;
        }
        final RemoteKey key = handler.remoteKey;
        for (int i = 0; i < count; i++)
        {
            batch[i].set(key.baseAddress() + (long)i * length, key, length, destination, 0, completion);
        }
        final int target = completion.completed + count;
        final long errorsBefore = completion.errors;
        final int accepted = endpoint.readBatch(batch, count);
        if (accepted != count)
        {
            return TransportStatus.BACK_PRESSURED;
        }
        long spins = 0;
        final long start = System.nanoTime();
        while (completion.completed - target < 0)
        {
            progress(worker);
            if ((++spins & 0xFFF) == 0 && System.nanoTime() - start > OPERATION_TIMEOUT_NANOS)
            {
                return TransportStatus.TIMED_OUT;
            }
        }
        return completion.errors == errorsBefore ? TransportStatus.OK : completion.lastStatus;
    }

    /** Send {@code length} bytes and progress until the server's echo has arrived (one round trip). */
    public TransportStatus pingPong(final int length)
    {
        final long before = handler.messages;
        final long id = endpoint.send(message, 0, length, null);
        if (id < 0)
        {
            return TransportStatus.fromSentinel(id);
        }
        long spins = 0;
        final long start = System.nanoTime();
        while (handler.messages == before)
        {
            progress(worker);
            if (!endpoint.isConnected())
            {
                return TransportStatus.PEER_FAILED;
            }
            if ((++spins & 0xFFF) == 0 && System.nanoTime() - start > OPERATION_TIMEOUT_NANOS)
            {
                return TransportStatus.TIMED_OUT;
            }
        }
        return handler.lastLength == length ? TransportStatus.OK : TransportStatus.TRANSPORT_ERROR;
    }

    /** {@code read-lat}: the latency of one read at a time, in nanoseconds; warm-up reads are not recorded. */
    public Histogram readLatency(final int size, final int iterations, final int warmup)
    {
        checkSize(size);
        checkData(size);
        final Histogram histogram = newHistogram();
        for (int i = -warmup; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            final TransportStatus status = read(0, size);
            final long t1 = System.nanoTime();
            check(status, "read");
            if (i >= 0)
            {
                histogram.recordValue(t1 - t0);
            }
        }
        return histogram;
    }

    /** {@code send-lat}: round-trip times of a message echoed by the server, in nanoseconds (perftest halves them). */
    public Histogram sendRoundTrip(final int size, final int iterations, final int warmup)
    {
        checkSize(size);
        final Histogram histogram = newHistogram();
        for (int i = -warmup; i < iterations; i++)
        {
            final long t0 = System.nanoTime();
            final TransportStatus status = pingPong(size);
            final long t1 = System.nanoTime();
            check(status, "send");
            if (i >= 0)
            {
                histogram.recordValue(t1 - t0);
            }
        }
        return histogram;
    }

    /**
     * {@code read-bw}: {@code iterations} reads of {@code size} bytes with up to {@code depth} in flight.
     *
     * @return elapsed nanoseconds of the measured reads.
     */
    public long readBandwidth(final int size, final int iterations, final int depth)
    {
        checkSize(size);
        checkData(size);
        final long start = System.nanoTime();
        final int base = completion.completed;
        int posted = 0;
        long spins = 0;
        long lastProgress = start;
        int lastCompleted = 0;
        while (completion.completed - base < iterations)
        {
            while (posted < iterations && posted - (completion.completed - base) < depth)
            {
                final long id = endpoint.read(handler.remoteKey.baseAddress(), handler.remoteKey, size,
                    destination, 0, completion);
                if (id < 0)
                {
                    if (id == TransportStatus.BACK_PRESSURED.sentinel())
                    {
                        break;
                    }
                    check(TransportStatus.fromSentinel(id), "read");
                }
                posted++;
            }
            progress(worker);
            if ((++spins & 0xFFF) == 0)
            {
                final long now = System.nanoTime();
                if (completion.completed != lastCompleted)
                {
                    lastCompleted = completion.completed;
                    lastProgress = now;
                }
                else if (now - lastProgress > OPERATION_TIMEOUT_NANOS)
                {
                    throw new PerfException("read-bw stalled: no read completed for 10 s");
                }
            }
        }
        if (completion.errors != 0)
        {
            throw new PerfException(completion.errors + " reads failed, last with " + completion.lastStatus);
        }
        return System.nanoTime() - start;
    }

    @Override
    public void close()
    {
        endpoint.close();
        worker.close();
    }

    /** One pass of the worker; {@link Worker#doWork()} may declare any exception, none is expected. */
    private static int progress(final Worker worker)
    {
        try
        {
            return worker.doWork();
        }
        catch (final RuntimeException ex)
        {
            throw ex;
        }
        catch (final Exception ex)
        {
            throw new PerfException("worker failed: " + ex);
        }
    }

    private void checkSize(final int size)
    {
        if (size <= 0 || size > maxBytes)
        {
            throw new PerfException("size " + size + " is not in 1.." + maxBytes);
        }
    }

    /** One read of the region's start must return the server's pattern: the numbers are of real reads. */
    private void checkData(final int size)
    {
        check(read(0, size), "read");
        for (int i = 0; i < size; i++)
        {
            if (destination.getByte(i) != PerfHello.pattern(i))
            {
                throw new PerfException("read returned wrong data at byte " + i + " of " + size);
            }
        }
    }

    private static void check(final TransportStatus status, final String op)
    {
        if (status != TransportStatus.OK)
        {
            throw new PerfException(op + " failed: " + status.description());
        }
    }

    static Histogram newHistogram()
    {
        return new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    }

    /** Completions of reads, counted on the progress thread (which is the caller's). */
    private static final class ReadCompletion implements CompletionHandler
    {
        int completed;
        long errors;
        TransportStatus lastStatus = TransportStatus.OK;

        @Override
        public void onComplete(final TransportStatus status, final long requestId)
        {
            completed++;
            lastStatus = status;
            if (status != TransportStatus.OK)
            {
                errors++;
            }
        }
    }

    private static final class Handler implements EndpointHandler
    {
        volatile RemoteKey remoteKey;
        long messages;
        int lastLength;

        @Override
        public void onMessage(final Endpoint endpoint, final DirectBuffer buffer, final int offset, final int length)
        {
            if (remoteKey == null)
            {
                remoteKey = PerfHello.decode(buffer, offset, length);
                return;
            }
            lastLength = length;
            messages++;
        }
    }
}

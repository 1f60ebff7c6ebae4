package io.rdmakv.client;

import io.rdmakv.client.internal.ClientRuntime;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A client of an rdmakv cluster. GETs read a node's memory pool one-sided where the transport reads natively (and
 * fall back to asking the node as the protocol requires); PUT, DELETE and STATS are requests to the node that owns
 * the key. Thread-safe: one client serves many threads; requests in flight are bounded by
 * {@link KvClientBuilder#maxInFlight(int)}, beyond which callers wait.
 *
 * <pre>{@code
 * try (KvClient client = KvClient.builder().server("127.0.0.1:7400").build())
 * {
 *     client.put("k".getBytes(UTF_8), "v".getBytes(UTF_8));
 *     byte[] v = client.get("k".getBytes(UTF_8));   // null when absent
 * }
 * }</pre>
 *
 * <p>Errors: {@link IllegalArgumentException} for keys or values beyond the limits (checked before anything is
 * sent); {@link KvException} for everything else, typed by {@link KvError} and carrying the server's
 * {@link io.rdmakv.protocol.wire.Status} when it answered with one. Every call returns or fails within the request
 * timeout. Async futures complete on the client's progress thread: keep dependent stages short, or use the
 * {@code *Async} stage methods; blocking calls on that thread are refused.
 *
 * <p>Arrays and buffers passed in are not copied: do not change them until the call returns (or its future
 * completes). ByteBuffer forms use the bytes between position and limit and do not move the position.
 */
public final class KvClient implements AutoCloseable
{
    private final KvClientConfig config;
    private final ClientRuntime runtime;

    private KvClient(final KvClientConfig config, final ClientRuntime runtime)
    {
        this.config = config;
        this.runtime = runtime;
    }

    public static KvClientBuilder builder()
    {
        return new KvClientBuilder();
    }

    static KvClient connect(final KvClientConfig config)
    {
        return new KvClient(config, ClientRuntime.open(config));
    }

    /** The value of {@code key}, or {@code null} when the key is absent. */
    public byte[] get(final byte[] key)
    {
        return (byte[])runtime.call(ClientRuntime.GET, Objects.requireNonNull(key, "key"), null);
    }

    public byte[] get(final ByteBuffer key)
    {
        return (byte[])runtime.call(ClientRuntime.GET, Objects.requireNonNull(key, "key"), null);
    }

    /** Store {@code value} under {@code key}; returns once the node has made it durable. */
    public void put(final byte[] key, final byte[] value)
    {
        runtime.call(ClientRuntime.PUT, Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    public void put(final ByteBuffer key, final ByteBuffer value)
    {
        runtime.call(ClientRuntime.PUT, Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /** Delete {@code key}; false when the node answers NOT_FOUND (the key did not exist), true otherwise. */
    public boolean delete(final byte[] key)
    {
        return (Boolean)runtime.call(ClientRuntime.DELETE, Objects.requireNonNull(key, "key"), null);
    }

    public boolean delete(final ByteBuffer key)
    {
        return (Boolean)runtime.call(ClientRuntime.DELETE, Objects.requireNonNull(key, "key"), (ByteBuffer)null);
    }

    /**
     * The values of several keys, in the order of {@code keys} ({@code null} for an absent key). The GETs run
     * concurrently (up to the in-flight bound).
     */
    public List<byte[]> multiGet(final List<byte[]> keys)
    {
        final List<CompletableFuture<byte[]>> futures = new ArrayList<>(keys.size());
        for (final byte[] key : keys)
        {
            futures.add(getAsync(key));
        }
        final List<byte[]> values = new ArrayList<>(keys.size());
        for (final CompletableFuture<byte[]> f : futures)
        {
            values.add(join(f));
        }
        return values;
    }

    @SuppressWarnings("unchecked")
    public CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        return (CompletableFuture<byte[]>)(CompletableFuture<?>)runtime.callAsync(
            ClientRuntime.GET, Objects.requireNonNull(key, "key"), null);
    }

    @SuppressWarnings("unchecked")
    public CompletableFuture<byte[]> getAsync(final ByteBuffer key)
    {
        return (CompletableFuture<byte[]>)(CompletableFuture<?>)runtime.callAsync(
            ClientRuntime.GET, Objects.requireNonNull(key, "key"), null);
    }

    @SuppressWarnings("unchecked")
    public CompletableFuture<Void> putAsync(final byte[] key, final byte[] value)
    {
        return (CompletableFuture<Void>)(CompletableFuture<?>)runtime.callAsync(
            ClientRuntime.PUT, Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    @SuppressWarnings("unchecked")
    public CompletableFuture<Void> putAsync(final ByteBuffer key, final ByteBuffer value)
    {
        return (CompletableFuture<Void>)(CompletableFuture<?>)runtime.callAsync(
            ClientRuntime.PUT, Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    @SuppressWarnings("unchecked")
    public CompletableFuture<Boolean> deleteAsync(final byte[] key)
    {
        return (CompletableFuture<Boolean>)(CompletableFuture<?>)runtime.callAsync(
            ClientRuntime.DELETE, Objects.requireNonNull(key, "key"), null);
    }

    /** Every node's counters (a STATS request to each node of the cluster map) and this client's counters. */
    public KvStats stats()
    {
        final Map<Integer, Map<String, String>> nodes = runtime.nodeStats();
        return new KvStats(nodes, runtime.counters());
    }

    /** This client's counters alone, without asking any node. */
    public Map<ClientCounter, Long> clientCounters()
    {
        return runtime.counters();
    }

    /** The transport in use ({@code tcp}, {@code verbs}). */
    public String transport()
    {
        return runtime.transportName();
    }

    /** Why that transport: the selector's one line naming the choice and why every other lost. */
    public String transportSelection()
    {
        return runtime.transportSelection();
    }

    /** How GETs are served (the configured mode with {@link GetMode#AUTO} resolved). */
    public GetMode getMode()
    {
        return runtime.getMode();
    }

    /** Memory registrations done by this client's transport: one at connect, flat afterwards. */
    public long registrationCount()
    {
        return runtime.registrationCount();
    }

    /** Largest key accepted (the node's limit). */
    public int maxKeyLength()
    {
        return runtime.maxKeyLength();
    }

    /** Largest value accepted (the node's limit). */
    public int maxValueLength()
    {
        return runtime.maxValueLength();
    }

    public KvClientConfig config()
    {
        return config;
    }

    /** Close connections and stop the progress thread; requests still in flight fail with {@link KvError#CLOSED}. */
    @Override
    public void close()
    {
        runtime.close();
    }

    private static <T> T join(final CompletableFuture<T> future)
    {
        try
        {
            return future.join();
        }
        catch (final CompletionException ex)
        {
            if (ex.getCause() instanceof RuntimeException re)
            {
                throw re;
            }
            throw ex;
        }
    }
}

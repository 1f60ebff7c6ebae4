package io.rdmakv.client;

import io.rdmakv.client.internal.ClientRuntime;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.io.ClosedIllegalStateException;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * Values in Chronicle Bytes, for services that keep their data there: {@code get} appends a value to the caller's
 * {@link Bytes} and {@code put} sends one from a {@link BytesStore}, with no {@code byte[]} of the value on the way.
 * A view over a {@link KvClient} (no resources of its own); same threads, timeouts, limits and {@link KvException}
 * kinds as the client's {@code byte[]} API.
 *
 * <ul>
 *   <li><b>get</b>: the value is copied once, from where the protocol finds it (the request's registered read window
 *       after a one-sided read; the transport's receive buffer for an RPC answer) to the Bytes' write position, which
 *       moves by the value's length. Absent: {@code false}, the Bytes unchanged. Elastic Bytes grow; when the value
 *       is larger than the Bytes can take, Chronicle's {@code DecoratedBufferOverflowException} (a
 *       {@link java.nio.BufferOverflowException}), the Bytes unchanged.</li>
 *   <li><b>put</b> (and keys given as a {@code BytesStore}): the bytes between read position and read limit, positions
 *       unchanged, read in place when the request is encoded.</li>
 *   <li>Released Bytes are refused with Chronicle's {@link ClosedIllegalStateException}; {@code null} with
 *       {@link NullPointerException}. An async call's Bytes and stores belong to the call until its future completes
 *       (the value is written on the client's progress thread, before completion).</li>
 * </ul>
 * Chronicle Bytes is an optional dependency: only a service using this class declares it. Its JVM options:
 * {@link ChronicleJvmFlags}, checked by {@link #of}.
 */
public final class ChronicleKv
{
    private final ClientRuntime runtime;

    private ChronicleKv(final ClientRuntime runtime)
    {
        this.runtime = runtime;
    }

    /**
     * The Chronicle Bytes API of {@code client}.
     *
     * @param client an open client.
     * @return the view; as long-lived and thread-safe as the client.
     * @throws IllegalStateException when the JVM lacks the options Chronicle needs ({@link ChronicleJvmFlags}).
     */
    public static ChronicleKv of(final KvClient client)
    {
        Objects.requireNonNull(client, "client");
        ChronicleJvmFlags.ensure();
        return new ChronicleKv(client.runtime());
    }

    /**
     * Append the value of {@code key} to {@code into}.
     *
     * @param key  the key.
     * @param into the destination, appended at its write position.
     * @return {@code false} when the key is absent (nothing written).
     * @throws KvException when the GET fails.
     */
    public boolean get(final byte[] key, final Bytes<?> into)
    {
        return get(view(key), into);
    }

    /**
     * {@link #get(byte[], Bytes)} of a text key (UTF-8).
     *
     * @param key  the key.
     * @param into the destination.
     * @return {@code false} when the key is absent.
     */
    public boolean get(final String key, final Bytes<?> into)
    {
        return get(view(key), into);
    }

    /**
     * {@link #get(byte[], Bytes)} of a key held in Chronicle memory.
     *
     * @param key  the key between read position and read limit.
     * @param into the destination.
     * @return {@code false} when the key is absent.
     */
    public boolean get(final BytesStore<?, ?> key, final Bytes<?> into)
    {
        return get(view(key, "key"), into);
    }

    /**
     * GET into {@code into} without blocking.
     *
     * @param key  the key.
     * @param into the destination; the call's until the future completes.
     * @return whether the key was found; fails like {@link KvClient#getAsync(byte[])}.
     */
    public CompletableFuture<Boolean> getAsync(final byte[] key, final Bytes<?> into)
    {
        return getAsync(view(key), into);
    }

    /**
     * {@link #getAsync(byte[], Bytes)} of a text key (UTF-8).
     *
     * @param key  the key.
     * @param into the destination.
     * @return whether the key was found.
     */
    public CompletableFuture<Boolean> getAsync(final String key, final Bytes<?> into)
    {
        return getAsync(view(key), into);
    }

    /**
     * {@link #getAsync(byte[], Bytes)} of a key held in Chronicle memory (unchanged until the future completes).
     *
     * @param key  the key between read position and read limit.
     * @param into the destination.
     * @return whether the key was found.
     */
    public CompletableFuture<Boolean> getAsync(final BytesStore<?, ?> key, final Bytes<?> into)
    {
        return getAsync(view(key, "key"), into);
    }

    /**
     * Store the readable bytes of {@code value}; returns once the node has made them durable.
     *
     * @param key   the key.
     * @param value the value between read position and read limit.
     * @throws KvException when the PUT fails.
     */
    public void put(final byte[] key, final BytesStore<?, ?> value)
    {
        runtime.put(view(key), view(value, "value"));
    }

    /**
     * {@link #put(byte[], BytesStore)} under a text key (UTF-8).
     *
     * @param key   the key.
     * @param value the value between read position and read limit.
     */
    public void put(final String key, final BytesStore<?, ?> value)
    {
        runtime.put(view(key), view(value, "value"));
    }

    /**
     * {@link #put(byte[], BytesStore)} under a key held in Chronicle memory.
     *
     * @param key   the key between read position and read limit.
     * @param value the value between read position and read limit.
     */
    public void put(final BytesStore<?, ?> key, final BytesStore<?, ?> value)
    {
        runtime.put(view(key, "key"), view(value, "value"));
    }

    /**
     * PUT without blocking.
     *
     * @param key   the key.
     * @param value the value (unchanged and unreleased until the future completes).
     * @return completes once the node has made the value durable.
     */
    public CompletableFuture<Void> putAsync(final byte[] key, final BytesStore<?, ?> value)
    {
        return runtime.putAsync(view(key), view(value, "value"));
    }

    /**
     * {@link #putAsync(byte[], BytesStore)} under a text key (UTF-8).
     *
     * @param key   the key.
     * @param value the value.
     * @return completes once the node has made the value durable.
     */
    public CompletableFuture<Void> putAsync(final String key, final BytesStore<?, ?> value)
    {
        return runtime.putAsync(view(key), view(value, "value"));
    }

    /**
     * {@link #putAsync(byte[], BytesStore)} under a key held in Chronicle memory.
     *
     * @param key   the key (unchanged until the future completes).
     * @param value the value.
     * @return completes once the node has made the value durable.
     */
    public CompletableFuture<Void> putAsync(final BytesStore<?, ?> key, final BytesStore<?, ?> value)
    {
        return runtime.putAsync(view(key, "key"), view(value, "value"));
    }

    private boolean get(final DirectBuffer key, final Bytes<?> into)
    {
        final BytesValueSink sink = BytesValueSink.into(into);
        try
        {
            return runtime.getInto(key, sink);
        }
        finally
        {
            sink.close(); // a value arriving after a timeout is dropped, not written into Bytes the caller has back
        }
    }

    private CompletableFuture<Boolean> getAsync(final DirectBuffer key, final Bytes<?> into)
    {
        return runtime.getIntoAsync(key, BytesValueSink.into(into));
    }

    private static DirectBuffer view(final byte[] key)
    {
        return new UnsafeBuffer(Objects.requireNonNull(key, "key"));
    }

    private static DirectBuffer view(final String key)
    {
        return new UnsafeBuffer(Objects.requireNonNull(key, "key").getBytes(StandardCharsets.UTF_8));
    }

    /**
     * A view (no copy) of the bytes between read position and read limit: their address when off-heap, the array or
     * heap buffer behind them otherwise.
     */
    static DirectBuffer view(final BytesStore<?, ?> store, final String name)
    {
        Objects.requireNonNull(store, name);
        if (store.refCount() <= 0)
        {
            throw new ClosedIllegalStateException("the " + name + " BytesStore has been released");
        }
        final long position = store.readPosition();
        final int length = Math.toIntExact(store.readRemaining());
        if (length == 0)
        {
            return new UnsafeBuffer(new byte[0]);
        }
        if (store.isDirectMemory())
        {
            final long address = store.addressForRead(position);
            if (store instanceof Bytes && !((Bytes<?>)store).bytesStore().inside(position, length))
            {
                throw new IllegalArgumentException("the " + name + " spans two chunks of a mapped file: copy it " +
                    "into one native Bytes first");
            }
            return new UnsafeBuffer(address, length);
        }
        final Object memory = store.underlyingObject();
        if (memory instanceof byte[])
        {
            return new UnsafeBuffer((byte[])memory, Math.toIntExact(position), length);
        }
        if (memory instanceof ByteBuffer)
        {
            return new UnsafeBuffer((ByteBuffer)memory, Math.toIntExact(position), length);
        }
        throw new IllegalArgumentException("a " + name + " BytesStore over " + memory + " is not supported: use " +
            "off-heap or byte[]-backed Chronicle memory");
    }
}

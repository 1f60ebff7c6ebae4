package io.rdmakv.client;

import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import java.time.Duration;
import java.time.Instant;
import io.rdmakv.client.internal.ClientRuntime;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A client of an rdmakv cluster, thread-safe. GETs read a node's memory pool one-sided where the transport reads
 * natively; PUT, DELETE and STATS are requests to the node that owns the key. Every operation takes keys as
 * {@code byte[]}, {@code String} (UTF-8) or {@code ByteBuffer} (the bytes between position and limit; the position
 * does not move), synchronously or as {@code *Async}.
 *
 * <p>Synchronous calls return or fail within the request timeout, waiting for a free in-flight slot if need be.
 * Asynchronous calls never block: beyond {@link KvClientBuilder#maxInFlight} they wait in a bounded queue
 * ({@link KvClientBuilder#maxQueuedRequests}), and when that is full the future fails at once with
 * {@link KvBackPressureException}. Futures complete on the client's progress thread: keep dependent stages short;
 * a blocking call there is refused. Arrays and buffers passed in are not copied: leave them unchanged until the call
 * returns or its future completes.
 *
 * <p>Failures are {@link KvException}s of a kind ({@link KvError} lists the codes); keys or values beyond the
 * limits are refused with {@link IllegalArgumentException} before anything is sent.
 */
public final class KvClient implements AutoCloseable
{
    private final KvClientConfig config;
    private final ClientRuntime runtime;
    private final KeyScanning scans;

    private KvClient(final KvClientConfig config, final ClientRuntime runtime)
    {
        this.config = config;
        this.runtime = runtime;
        this.scans = new KeyScanning(runtime);
    }

    /**
     * A builder for a client; {@link KvClientBuilder#server(String)} at least once, then
     * {@link KvClientBuilder#build()}.
     *
     * @return a new builder with the defaults.
     */
    public static KvClientBuilder builder()
    {
        return new KvClientBuilder();
    }

    static KvClient connect(final KvClientConfig config)
    {
        return new KvClient(config, ClientRuntime.open(config));
    }

    /**
     * The value of a key.
     *
     * @param key the key.
     * @return the value, or {@code null} when the key is absent.
     * @throws KvException when the GET fails (see {@link KvError}).
     */
    public byte[] get(final byte[] key)
    {
        return runtime.get(Objects.requireNonNull(key, "key"));
    }

    /**
     * The value of a key given as text.
     *
     * @param key the key, encoded as UTF-8.
     * @return the value, or {@code null} when the key is absent.
     * @throws KvException when the GET fails.
     */
    public byte[] get(final String key)
    {
        return runtime.get(utf8(key, "key"));
    }

    /**
     * The value of a key given as a buffer.
     *
     * @param key the key between position and limit.
     * @return the value, or {@code null} when the key is absent.
     * @throws KvException when the GET fails.
     */
    public byte[] get(final ByteBuffer key)
    {
        return runtime.get(Objects.requireNonNull(key, "key"));
    }

    /**
     * Store a value; returns once the node has made it durable.
     *
     * @param key   the key.
     * @param value the value.
     * @throws KvException when the PUT fails; a {@link KvServerException} when the node refuses it (e.g.
     *                     {@link KvError#STORE_FULL}).
     */
    public void put(final byte[] key, final byte[] value)
    {
        runtime.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * Store a value under a key given as text.
     *
     * @param key   the key, encoded as UTF-8.
     * @param value the value.
     * @throws KvException when the PUT fails.
     */
    public void put(final String key, final byte[] value)
    {
        runtime.put(utf8(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * Store a text value under a text key.
     *
     * @param key   the key, encoded as UTF-8.
     * @param value the value, encoded as UTF-8.
     * @throws KvException when the PUT fails.
     */
    public void put(final String key, final String value)
    {
        runtime.put(utf8(key, "key"), utf8(value, "value"));
    }

    /**
     * Store a value given as buffers.
     *
     * @param key   the key between position and limit.
     * @param value the value between position and limit.
     * @throws KvException when the PUT fails.
     */
    public void put(final ByteBuffer key, final ByteBuffer value)
    {
        runtime.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * GET a value with its data version ({@link Versioned}); the version is what {@link #replace} and
     * {@link #delete(byte[], long)} compare with. One-sided like {@link #get(byte[])} (the version is in the value's
     * extent, the same read); a value with an expiry is read one-sided while surely live on the node's clock, by its
     * node near its expiry.
     *
     * @return the value and its version, or {@code null} when the key is absent (or expired).
     */
    public Versioned getWithVersion(final byte[] key)
    {
        return runtime.getWithVersion(Objects.requireNonNull(key, "key"));
    }

    /** {@link #getWithVersion} without blocking. */
    public CompletableFuture<Versioned> getWithVersionAsync(final byte[] key)
    {
        return runtime.getWithVersionAsync(Objects.requireNonNull(key, "key"));
    }

    /**
     * Store a value that expires after {@code ttl} (from now on this client's clock; the node stores the instant).
     *
     * @return the data version written.
     */
    public long put(final byte[] key, final byte[] value, final Duration ttl)
    {
        return runtime.conditional(RecordWriteRequestFlyweight.OP_PUT, 0, expiryAfter(ttl),
            Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value")).version();
    }

    /** {@link #put(byte[], byte[], Duration)} without blocking: the data version written. */
    public CompletableFuture<Long> putAsync(final byte[] key, final byte[] value, final Duration ttl)
    {
        return runtime.conditionalAsync(RecordWriteRequestFlyweight.OP_PUT, 0, expiryAfter(ttl),
            Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value")).thenApply(WriteResult::version);
    }

    /** Store a value that expires at {@code expiry} (absolute). @return the data version written. */
    public long put(final byte[] key, final byte[] value, final Instant expiry)
    {
        return runtime.conditional(RecordWriteRequestFlyweight.OP_PUT, 0, expiryMillis(expiry),
            Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value")).version();
    }

    /**
     * Restore a key as a backup recorded it: its value with the data version and expiry it had, not a new version (a
     * client holding that version from before the backup can still {@link #replace} against it). For restore tools:
     * on a node with users it needs the {@code admin} role, as the backup's scans do.
     *
     * @param dataVersion  the version to keep (not 0).
     * @param expiryMillis the absolute expiry in ms since the epoch, 0: none.
     * @return the data version written ({@code dataVersion}).
     */
    public CompletableFuture<Long> restoreAsync(final byte[] key, final byte[] value, final long dataVersion,
        final long expiryMillis)
    {
        if (dataVersion == 0)
        {
            throw new IllegalArgumentException("a restore keeps a data version: 0 is none");
        }
        return runtime.conditionalAsync(RecordWriteRequestFlyweight.OP_PUT, dataVersion, expiryMillis,
            Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value")).thenApply(WriteResult::version);
    }

    /**
     * Store a value only if the key is absent (an expired key is absent). Atomic on the key's primary; a retry after a
     * lost answer is answered as the first attempt was.
     *
     * @return applied with the new version, or refused with the present version.
     */
    public WriteResult putIfAbsent(final byte[] key, final byte[] value)
    {
        return runtime.conditional(RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, 0,
            Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /** {@link #putIfAbsent} without blocking. */
    public CompletableFuture<WriteResult> putIfAbsentAsync(final byte[] key, final byte[] value)
    {
        return runtime.conditionalAsync(RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, 0,
            Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * Store a value only if the key's data version is {@code expectedVersion} (compare-and-set).
     *
     * @return applied with the new version, or refused with the present version (0: absent).
     */
    public WriteResult replace(final byte[] key, final long expectedVersion, final byte[] value)
    {
        return runtime.conditional(RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, expectedVersion, 0,
            Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /** {@link #replace} without blocking. */
    public CompletableFuture<WriteResult> replaceAsync(final byte[] key, final long expectedVersion,
        final byte[] value)
    {
        return runtime.conditionalAsync(RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, expectedVersion, 0,
            Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * Delete a key only if its data version is {@code expectedVersion}.
     *
     * @return applied (version 0), or refused with the present version (0: absent).
     */
    public WriteResult delete(final byte[] key, final long expectedVersion)
    {
        return runtime.conditional(RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION, expectedVersion, 0,
            Objects.requireNonNull(key, "key"), new byte[0]);
    }

    /** {@link #delete(byte[], long)} without blocking. */
    public CompletableFuture<WriteResult> deleteAsync(final byte[] key, final long expectedVersion)
    {
        return runtime.conditionalAsync(RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION, expectedVersion, 0,
            Objects.requireNonNull(key, "key"), new byte[0]);
    }

    /**
     * Add {@code delta} to the key's value read as a decimal int64 (absent: 0), as Redis's INCRBY: the value is
     * written back as decimal ASCII, its expiry kept. Atomic on the primary, exactly once across retries.
     *
     * @return the new value.
     * @throws KvServerException {@link KvError#NOT_AN_INTEGER} when the value is not an integer or the sum overflows.
     */
    public long increment(final byte[] key, final long delta)
    {
        return runtime.increment(Objects.requireNonNull(key, "key"), delta);
    }

    /** {@link #increment} without blocking. */
    public CompletableFuture<Long> incrementAsync(final byte[] key, final long delta)
    {
        return runtime.incrementAsync(Objects.requireNonNull(key, "key"), delta);
    }

    /** Make the key expire after {@code ttl}. @return false when the key is absent. */
    public boolean expire(final byte[] key, final Duration ttl)
    {
        return runtime.expireAt(Objects.requireNonNull(key, "key"), expiryAfter(ttl));
    }

    /** {@link #expire} without blocking. */
    public CompletableFuture<Boolean> expireAsync(final byte[] key, final Duration ttl)
    {
        return runtime.expireAtAsync(Objects.requireNonNull(key, "key"), expiryAfter(ttl));
    }

    /** Remove the key's expiry. @return false when the key is absent. */
    public boolean persist(final byte[] key)
    {
        return runtime.expireAt(Objects.requireNonNull(key, "key"), 0);
    }

    /** {@link #persist} without blocking. */
    public CompletableFuture<Boolean> persistAsync(final byte[] key)
    {
        return runtime.expireAtAsync(Objects.requireNonNull(key, "key"), 0);
    }

    /**
     * How long the key has left, as Redis's PTTL: remaining milliseconds on this client's clock, {@code -1} when the
     * key has no expiry, {@code -2} when it is absent (or expired).
     */
    public long ttlMillis(final byte[] key)
    {
        return remaining(runtime.expiryOf(Objects.requireNonNull(key, "key")));
    }

    /** {@link #ttlMillis} without blocking. */
    public CompletableFuture<Long> ttlMillisAsync(final byte[] key)
    {
        return runtime.expiryOfAsync(Objects.requireNonNull(key, "key")).thenApply(KvClient::remaining);
    }

    private static long remaining(final long expiry)
    {
        if (expiry == -2)
        {
            return -2;
        }
        return expiry == 0 ? -1 : Math.max(0, expiry - System.currentTimeMillis());
    }

    private static long expiryAfter(final Duration ttl)
    {
        Objects.requireNonNull(ttl, "ttl");
        if (ttl.isNegative() || ttl.isZero())
        {
            throw new IllegalArgumentException("ttl must be positive: " + ttl);
        }
        return Math.addExact(System.currentTimeMillis(), ttl.toMillis());
    }

    private static long expiryMillis(final Instant expiry)
    {
        final long millis = Objects.requireNonNull(expiry, "expiry").toEpochMilli();
        if (millis <= 0)
        {
            throw new IllegalArgumentException("expiry must be after the epoch: " + expiry);
        }
        return millis;
    }

    /**
     * A new atomic multi-key write: PUTs and DELETEs of keys sharing one hash slot ({@code {tag}}), applied all or
     * nothing by {@link WriteBatch#execute()} (one RocksDB write batch, replicated as one unit, exactly once across
     * retries). Keys of different slots are refused ({@link KvError#CROSSSLOT}).
     */
    public WriteBatch writeBatch()
    {
        return new WriteBatch(runtime);
    }

    /**
     * PUT every entry of {@code entries} atomically (Redis's MSET in one hash slot): a {@link #writeBatch()} of PUTs.
     *
     * @throws KvException {@link KvError#CROSSSLOT} when the keys hash to more than one slot: nothing written.
     */
    public void putAll(final Map<byte[], byte[]> entries)
    {
        batchOf(entries).execute();
    }

    /** {@link #putAll} without blocking. */
    public CompletableFuture<Void> putAllAsync(final Map<byte[], byte[]> entries)
    {
        return batchOf(entries).executeAsync();
    }

    private WriteBatch batchOf(final Map<byte[], byte[]> entries)
    {
        final WriteBatch batch = writeBatch();
        for (final Map.Entry<byte[], byte[]> e : Objects.requireNonNull(entries, "entries").entrySet())
        {
            batch.put(e.getKey(), e.getValue());
        }
        return batch;
    }

    /**
     * Delete a key.
     *
     * @param key the key.
     * @return {@code false} when the key did not exist, {@code true} otherwise.
     * @throws KvException when the DELETE fails.
     */
    public boolean delete(final byte[] key)
    {
        return runtime.delete(Objects.requireNonNull(key, "key"));
    }

    /**
     * Delete a key given as text.
     *
     * @param key the key, encoded as UTF-8.
     * @return {@code false} when the key did not exist.
     * @throws KvException when the DELETE fails.
     */
    public boolean delete(final String key)
    {
        return runtime.delete(utf8(key, "key"));
    }

    /**
     * Delete a key given as a buffer.
     *
     * @param key the key between position and limit.
     * @return {@code false} when the key did not exist.
     * @throws KvException when the DELETE fails.
     */
    public boolean delete(final ByteBuffer key)
    {
        return runtime.delete(Objects.requireNonNull(key, "key"));
    }

    /**
     * The values of several keys, GETs run concurrently; waits for all within one request timeout (and for room in
     * the request queue, never failing for back-pressure).
     *
     * @param keys the keys.
     * @return the values in the order of {@code keys}, {@code null} for an absent key.
     * @throws KvException the first failure among the GETs.
     */
    public List<byte[]> multiGet(final List<byte[]> keys)
    {
        return runtime.multiGet(Objects.requireNonNull(keys, "keys"));
    }

    /**
     * The values of several keys given as text.
     *
     * @param keys the keys, each encoded as UTF-8.
     * @return the values in the order of {@code keys}, {@code null} for an absent key.
     * @throws KvException the first failure among the GETs.
     */
    public List<byte[]> multiGet(final String... keys)
    {
        return runtime.multiGet(utf8(keys));
    }

    /**
     * GET without blocking.
     *
     * @param key the key.
     * @return the value or {@code null}; fails with a {@link KvException} ({@link KvBackPressureException} at once
     *         when the request queue is full).
     */
    public CompletableFuture<byte[]> getAsync(final byte[] key)
    {
        return runtime.getAsync(Objects.requireNonNull(key, "key"));
    }

    /**
     * GET of a text key without blocking.
     *
     * @param key the key, encoded as UTF-8.
     * @return the value or {@code null}.
     */
    public CompletableFuture<byte[]> getAsync(final String key)
    {
        return runtime.getAsync(utf8(key, "key"));
    }

    /**
     * GET of a buffer key without blocking.
     *
     * @param key the key between position and limit.
     * @return the value or {@code null}.
     */
    public CompletableFuture<byte[]> getAsync(final ByteBuffer key)
    {
        return runtime.getAsync(Objects.requireNonNull(key, "key"));
    }

    /**
     * PUT without blocking.
     *
     * @param key   the key.
     * @param value the value.
     * @return completes once the node has made the value durable.
     */
    public CompletableFuture<Void> putAsync(final byte[] key, final byte[] value)
    {
        return runtime.putAsync(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * PUT under a text key without blocking.
     *
     * @param key   the key, encoded as UTF-8.
     * @param value the value.
     * @return completes once the node has made the value durable.
     */
    public CompletableFuture<Void> putAsync(final String key, final byte[] value)
    {
        return runtime.putAsync(utf8(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * PUT of a text value under a text key without blocking.
     *
     * @param key   the key, encoded as UTF-8.
     * @param value the value, encoded as UTF-8.
     * @return completes once the node has made the value durable.
     */
    public CompletableFuture<Void> putAsync(final String key, final String value)
    {
        return runtime.putAsync(utf8(key, "key"), utf8(value, "value"));
    }

    /**
     * PUT of buffers without blocking.
     *
     * @param key   the key between position and limit.
     * @param value the value between position and limit.
     * @return completes once the node has made the value durable.
     */
    public CompletableFuture<Void> putAsync(final ByteBuffer key, final ByteBuffer value)
    {
        return runtime.putAsync(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
    }

    /**
     * DELETE without blocking.
     *
     * @param key the key.
     * @return whether the key existed.
     */
    public CompletableFuture<Boolean> deleteAsync(final byte[] key)
    {
        return runtime.deleteAsync(Objects.requireNonNull(key, "key"));
    }

    /**
     * DELETE of a text key without blocking.
     *
     * @param key the key, encoded as UTF-8.
     * @return whether the key existed.
     */
    public CompletableFuture<Boolean> deleteAsync(final String key)
    {
        return runtime.deleteAsync(utf8(key, "key"));
    }

    /**
     * DELETE of a buffer key without blocking.
     *
     * @param key the key between position and limit.
     * @return whether the key existed.
     */
    public CompletableFuture<Boolean> deleteAsync(final ByteBuffer key)
    {
        return runtime.deleteAsync(Objects.requireNonNull(key, "key"));
    }

    /**
     * The values of several keys without blocking; each GET queues or fails like {@link #getAsync(byte[])}.
     *
     * @param keys the keys.
     * @return the values in key order ({@code null} for an absent key); fails as soon as one GET fails, and GETs
     *         not started by then are not started.
     */
    public CompletableFuture<List<byte[]>> multiGetAsync(final List<byte[]> keys)
    {
        return runtime.multiGetAsync(Objects.requireNonNull(keys, "keys"));
    }

    /**
     * The values of several text keys without blocking.
     *
     * @param keys the keys, each encoded as UTF-8.
     * @return the values in key order; fails as soon as one GET fails.
     */
    public CompletableFuture<List<byte[]>> multiGetAsync(final String... keys)
    {
        return runtime.multiGetAsync(utf8(keys));
    }

    /**
     * One step of a scan of every key of the cluster, as Redis's {@code SCAN cursor MATCH match COUNT count}: one
     * request to the node serving the cursor's hash slot, which answers at most {@code count} keys and looks at a
     * bounded number, so a call may find no key and still not be the end. Start with {@link ScanCursor#START} and
     * call again with the result's cursor until it {@link ScanCursor#isFinished()}. Every key present from the first
     * call to the last is returned at least once, across resharding and failover (see {@link ScanCursor}).
     *
     * @param cursor where to go on.
     * @param match  a Redis glob ({@code *}, {@code ?}, {@code [a-z]}, {@code \x}) keys must match; null: every key.
     * @param count  keys at most in this call (1..65535; Redis's default is 10).
     * @return the keys found and the next cursor.
     * @throws KvException when the request fails; {@link IllegalArgumentException} for a count out of range.
     */
    public ScanResult scan(final ScanCursor cursor, final String match, final int count)
    {
        return scans.scan(Objects.requireNonNull(cursor, "cursor"), utf8OrNull(match), count);
    }

    /**
     * {@link #scan(ScanCursor, String, int)} with a pattern of bytes.
     *
     * @param cursor where to go on.
     * @param match  the glob's bytes; null: every key.
     * @param count  keys at most in this call.
     * @return the keys found and the next cursor.
     */
    public ScanResult scan(final ScanCursor cursor, final byte[] match, final int count)
    {
        return scans.scan(Objects.requireNonNull(cursor, "cursor"), match, count);
    }

    /**
     * {@link #scan(ScanCursor, String, int)} without blocking.
     *
     * @param cursor where to go on.
     * @param match  a Redis glob; null: every key.
     * @param count  keys at most in this call.
     * @return the keys found and the next cursor.
     */
    public CompletableFuture<ScanResult> scanAsync(final ScanCursor cursor, final String match, final int count)
    {
        return scans.scanAsync(Objects.requireNonNull(cursor, "cursor"), utf8OrNull(match), count);
    }

    /**
     * Every key of the cluster matching {@code match}, read lazily by {@link #scan} calls of {@code count} keys as
     * the stream is consumed (on the consuming thread: not on the client's progress thread). The guarantee of
     * {@link #scan}; a key may come twice only if it was deleted and written again during the scan.
     *
     * @param match a Redis glob; null: every key.
     * @param count keys asked per request (1..65535).
     * @return a sequential stream of keys; a failed request throws its {@link KvException} from the stream.
     */
    public Stream<byte[]> scanKeys(final String match, final int count)
    {
        final byte[] pattern = utf8OrNull(match);
        final Iterator<byte[]> keys = scans.keys(pattern, count);
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(keys, Spliterator.ORDERED | Spliterator.NONNULL),
            false);
    }

    /**
     * {@link #scanKeys} as an {@link Iterable}: each {@code iterator()} is a new scan from the start.
     *
     * @param match a Redis glob; null: every key.
     * @param count keys asked per request (1..65535).
     * @return the keys, fetched as iterated.
     */
    public Iterable<byte[]> keys(final String match, final int count)
    {
        final byte[] pattern = utf8OrNull(match);
        if (count < 1 || count > 65_535)
        {
            throw new IllegalArgumentException("count " + count + " outside 1..65535");
        }
        return () -> scans.keys(pattern, count);
    }

    /**
     * The keys from {@code from} (inclusive) to {@code to} (exclusive) in byte order, with their values, at most
     * {@code limit}: an ordered read of keys sharing a hash tag ({@code {user1}:a .. {user1}:z}), answered by the
     * hash slot's primary from its store in pages. Each page is read as of one point in time; a write between pages
     * is seen or not by the pages after it.
     *
     * @param from  the first key (inclusive).
     * @param to    the end (exclusive); in the same hash slot as {@code from}.
     * @param limit entries at most (at least 1).
     * @return the entries in key order.
     * @throws IllegalArgumentException when {@code from} and {@code to} are in different hash slots (CROSSSLOT).
     */
    public List<KvEntry> range(final byte[] from, final byte[] to, final int limit)
    {
        return scans.range(Objects.requireNonNull(from, "from"), Objects.requireNonNull(to, "to"), limit);
    }

    /**
     * {@link #range(byte[], byte[], int)} of text keys.
     *
     * @param from  the first key (inclusive), UTF-8.
     * @param to    the end (exclusive), UTF-8.
     * @param limit entries at most.
     * @return the entries in key order.
     */
    public List<KvEntry> range(final String from, final String to, final int limit)
    {
        return scans.range(utf8(from, "from"), utf8(to, "to"), limit);
    }

    /**
     * {@link #range(byte[], byte[], int)} without blocking.
     *
     * @param from  the first key (inclusive).
     * @param to    the end (exclusive).
     * @param limit entries at most.
     * @return the entries in key order.
     */
    public CompletableFuture<List<KvEntry>> rangeAsync(final byte[] from, final byte[] to, final int limit)
    {
        return scans.rangeAsync(Objects.requireNonNull(from, "from"), Objects.requireNonNull(to, "to"), limit);
    }

    /**
     * The keys that start with {@code prefix}, in byte order, with their values, at most {@code limit}. The prefix
     * must hold a whole hash tag ({@code {user1}:}), so that every key starting with it is in one hash slot.
     *
     * @param prefix the keys' common start, holding {@code {tag}}.
     * @param limit  entries at most (at least 1).
     * @return the entries in key order.
     * @throws IllegalArgumentException when the prefix holds no whole hash tag (CROSSSLOT).
     */
    public List<KvEntry> prefix(final byte[] prefix, final int limit)
    {
        return scans.prefix(Objects.requireNonNull(prefix, "prefix"), limit);
    }

    /**
     * {@link #prefix(byte[], int)} of a text prefix.
     *
     * @param prefix the keys' common start, UTF-8.
     * @param limit  entries at most.
     * @return the entries in key order.
     */
    public List<KvEntry> prefix(final String prefix, final int limit)
    {
        return scans.prefix(utf8(prefix, "prefix"), limit);
    }

    /**
     * {@link #prefix(byte[], int)} without blocking.
     *
     * @param prefix the keys' common start.
     * @param limit  entries at most.
     * @return the entries in key order.
     */
    public CompletableFuture<List<KvEntry>> prefixAsync(final byte[] prefix, final int limit)
    {
        return scans.prefixAsync(Objects.requireNonNull(prefix, "prefix"), limit);
    }

    /**
     * Every node's counters (a STATS request to each node of the cluster map) and this client's counters.
     *
     * @return the snapshot; a node that did not answer has a single {@code error} entry.
     */
    public KvStats stats()
    {
        return new KvStats(runtime.nodeStats(), runtime.diagnostics().counters());
    }

    /**
     * Largest key accepted (the node's limit).
     *
     * @return bytes.
     */
    public int maxKeyLength()
    {
        return runtime.maxKeyLength();
    }

    /**
     * Largest value accepted (the node's limit).
     *
     * @return bytes.
     */
    public int maxValueLength()
    {
        return runtime.maxValueLength();
    }

    /**
     * The settings this client was built with.
     *
     * @return the immutable settings.
     */
    public KvClientConfig config()
    {
        return config;
    }

    /**
     * What this client chose (transport, GET mode) and counts, for operators, tools and tests.
     *
     * @return the client's diagnostics view.
     */
    public KvClientDiagnostics diagnostics()
    {
        return runtime.diagnostics();
    }

    /** The engine, for the API's adapters in this package ({@link ChronicleKv}). */
    ClientRuntime runtime()
    {
        return runtime;
    }

    /**
     * Close connections and stop the client's threads; requests still queued or in flight fail with
     * {@link KvError#CLOSED}.
     */
    @Override
    public void close()
    {
        runtime.close();
    }

    private static byte[] utf8(final String text, final String name)
    {
        return Objects.requireNonNull(text, name).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] utf8OrNull(final String text)
    {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    private static List<byte[]> utf8(final String[] keys)
    {
        final List<byte[]> bytes = new ArrayList<>(Objects.requireNonNull(keys, "keys").length);
        for (final String key : keys)
        {
            bytes.add(utf8(key, "key"));
        }
        return bytes;
    }
}

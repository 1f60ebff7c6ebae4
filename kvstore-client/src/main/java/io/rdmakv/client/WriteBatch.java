package io.rdmakv.client;

import io.rdmakv.client.internal.ClientRuntime;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * An atomic multi-key write ({@link KvClient#writeBatch()}): PUTs and DELETEs of keys that share one hash slot (give
 * them one hash tag, {@code {tag}}, as in Redis Cluster), applied all or nothing. The key's primary writes every entry
 * in one RocksDB write batch (one WAL record: after a crash all or none of it is there) and replicates it as one
 * message, applied by each backup in one write batch; the batch carries one write id, so a retry after a lost answer is
 * answered as the first attempt was and never applied twice. A key may appear twice: the later entry wins (as in
 * Redis's MSET).
 *
 * <p>Visibility: each key changes atomically for readers, one-sided ones included; the batch as a whole does not. A
 * reader may see one key of a batch new and another still old while the batch is being made visible (a node updates
 * its memory pool key by key once the batch is durable and replicated). Read the keys after {@link #execute()}
 * returned to see all of them.
 *
 * <p>Keys of different slots are refused before anything is sent ({@link KvError#CROSSSLOT}). Not thread-safe: build
 * and execute it on one thread; it may be executed again (a new write each time).
 */
public final class WriteBatch
{
    private final ClientRuntime runtime;
    private final List<byte[]> keys = new ArrayList<>();
    /** Per entry: the value, or null for a DELETE. */
    private final List<byte[]> values = new ArrayList<>();

    WriteBatch(final ClientRuntime runtime)
    {
        this.runtime = runtime;
    }

    /** Add a PUT of {@code key -> value}. */
    public WriteBatch put(final byte[] key, final byte[] value)
    {
        keys.add(checkKey(key));
        values.add(Objects.requireNonNull(value, "value"));
        return this;
    }

    /** Add a DELETE of {@code key} (nothing to delete is no error). */
    public WriteBatch delete(final byte[] key)
    {
        keys.add(checkKey(key));
        values.add(null);
        return this;
    }

    /** Entries added. */
    public int size()
    {
        return keys.size();
    }

    /**
     * Apply every entry, all or nothing, and wait.
     *
     * @throws KvException         {@link KvError#CROSSSLOT} when the keys hash to more than one slot, or the node's
     *                             refusal; nothing was written. A timeout leaves the batch applied or not, as a whole.
     * @throws IllegalArgumentException an empty batch, more than {@link BatchWriteRequestFlyweight#MAX_ENTRIES}
     *                             entries, or more bytes than one largest key and value.
     */
    public void execute()
    {
        final Encoded encoded = encode();
        runtime.batch(keys.get(0), encoded.entries, keys.size(), encoded.puts);
    }

    /** {@link #execute()} without blocking; refusals fail the future. */
    public CompletableFuture<Void> executeAsync()
    {
        final Encoded encoded;
        try
        {
            encoded = encode();
        }
        catch (final RuntimeException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return runtime.batchAsync(keys.get(0), encoded.entries, keys.size(), encoded.puts);
    }

    private record Encoded(byte[] entries, int puts)
    {
    }

    /** The entries in the wire layout, once the keys are known to share a slot. */
    private Encoded encode()
    {
        final int n = keys.size();
        if (n == 0 || n > BatchWriteRequestFlyweight.MAX_ENTRIES)
        {
            throw new IllegalArgumentException("an atomic batch holds 1.." + BatchWriteRequestFlyweight.MAX_ENTRIES +
                " entries, not " + n);
        }
        final int hashSlot = KeyHash.hashSlot(keys.get(0));
        long length = 0;
        int puts = 0;
        for (int i = 0; i < n; i++)
        {
            final int other = KeyHash.hashSlot(keys.get(i));
            if (other != hashSlot)
            {
                throw KvException.of(KvError.CROSSSLOT, "CROSSSLOT: the keys of an atomic batch must share a hash " +
                    "slot: entry 0 hashes to slot " + hashSlot + ", entry " + i + " to slot " + other + " (give them one " +
                    "hash tag, {tag})");
            }
            final byte[] value = values.get(i);
            length += BatchWriteRequestFlyweight.ENTRY_HEADER_LENGTH + keys.get(i).length +
                (value == null ? 0 : value.length);
            puts += value == null ? 0 : 1;
        }
        if (length > BatchWriteRequestFlyweight.MAX_ENTRIES_LENGTH)
        {
            throw new IllegalArgumentException("an atomic batch of " + length + " bytes exceeds the format's " +
                BatchWriteRequestFlyweight.MAX_ENTRIES_LENGTH);
        }
        final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(keys, values);
        return new Encoded(entries, puts);
    }

    private static byte[] checkKey(final byte[] key)
    {
        Objects.requireNonNull(key, "key");
        if (key.length == 0)
        {
            throw new IllegalArgumentException("key must not be empty");
        }
        return key;
    }
}

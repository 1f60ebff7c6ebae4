package io.rdmakv.server.backup;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.store.BulkLoad;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreKeys;
import io.rdmakv.server.store.StoreSnapshot;
import org.agrona.concurrent.UnsafeBuffer;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Backup and restore over the data port. A backup reads a slot range of a running node page by page from ONE
 * snapshot of its store (the checkpoint a catching-up replica gets), so it is the node's state at one instant, and
 * writes it into a new data directory: a store a node can start from as is, or that {@link #restore} loads into a
 * running node with PUTs (which replicate like any other write).
 */
public final class Backup
{
    /** Keys and bytes moved. */
    public record Result(long keys, long bytes, long millis)
    {
    }

    /** Where {@link #scan} hands each entry: the client's key and the value. */
    @FunctionalInterface
    public interface EntrySink
    {
        void accept(byte[] key, byte[] value) throws IOException;
    }

    /** PUTs in flight during a restore. */
    private static final int RESTORE_WINDOW = 64;

    private Backup()
    {
    }

    /**
     * Copy slots {@code firstSlot..lastSlot} of the node behind {@code node} into the new store {@code out}.
     *
     * @throws IOException when {@code out} holds anything already, or the node fails or refuses.
     */
    public static Result backup(final NodeConnection node, final int firstSlot, final int lastSlot,
        final int pageBytes, final Path out) throws IOException
    {
        if (Files.isDirectory(out))
        {
            try (var listing = Files.list(out))
            {
                if (listing.findAny().isPresent())
                {
                    throw new IOException("backup directory " + out.toAbsolutePath() + " is not empty");
                }
            }
        }
        final long start = System.nanoTime();
        final long[] keysAndBytes = new long[2];
        try (RocksStore store = RocksStore.open(out, Durability.DEFAULT);
            BulkLoad load = store.bulkLoad(8L << 20))
        {
            scan(node, firstSlot, lastSlot, pageBytes, (key, value) ->
            {
                load.put(key, value);
                keysAndBytes[0]++;
                keysAndBytes[1] += key.length + (long)value.length;
            });
        }
        return new Result(keysAndBytes[0], keysAndBytes[1], (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Read slots {@code firstSlot..lastSlot} of the node behind {@code node} page by page from one snapshot of its
     * store (opened by the first page) and hand every entry to {@code sink}, in the store's order (slot, then key).
     *
     * @throws IOException when the node fails or refuses, or the sink fails.
     */
    public static void scan(final NodeConnection node, final int firstSlot, final int lastSlot, final int pageBytes,
        final EntrySink sink) throws IOException
    {
        long snapshot = 0;
        byte[] cursor = new byte[0];
        while (true)
        {
            final NodeConnection.Answer page = node.scan(firstSlot, lastSlot, pageBytes, snapshot, cursor);
            if (page.status() != Status.OK)
            {
                throw new IOException("node answered the scan with " + page.status() + ": " + page.text());
            }
            snapshot = page.version();
            final byte[] entries = page.value();
            if (entries.length == 0)
            {
                return;
            }
            final UnsafeBuffer view = new UnsafeBuffer(entries);
            int at = 0;
            while (at < entries.length)
            {
                final int keyLength = view.getShort(at, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
                final int valueLength = view.getInt(at + 2, ByteOrder.LITTLE_ENDIAN);
                final byte[] storeKey = new byte[keyLength];
                final byte[] value = new byte[valueLength];
                view.getBytes(at + StoreSnapshot.ENTRY_HEADER_LENGTH, storeKey);
                view.getBytes(at + StoreSnapshot.ENTRY_HEADER_LENGTH + keyLength, value);
                sink.accept(StoreKeys.clientKey(storeKey), value);
                cursor = storeKey;
                at += StoreSnapshot.ENTRY_HEADER_LENGTH + keyLength + valueLength;
            }
        }
    }

    /**
     * PUT every key of the backup store {@code in} into the node behind {@code node}.
     *
     * @throws IOException when the node fails or refuses a PUT.
     */
    public static Result restore(final Path in, final NodeConnection node) throws IOException
    {
        if (!Files.isDirectory(in))
        {
            throw new IOException("no backup directory " + in.toAbsolutePath());
        }
        final long start = System.nanoTime();
        final AtomicLong keys = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final IOException[] failure = new IOException[1];
        final int[] inFlight = {0};
        try (RocksStore store = RocksStore.open(in, Durability.DEFAULT))
        {
            store.forEach((key, value) ->
            {
                try
                {
                    if (inFlight[0] == RESTORE_WINDOW)
                    {
                        check(node.next());
                        inFlight[0]--;
                    }
                    node.sendPut(key, value);
                    inFlight[0]++;
                    keys.incrementAndGet();
                    bytes.addAndGet(key.length + (long)value.length);
                    return true;
                }
                catch (final IOException ex)
                {
                    failure[0] = ex;
                    return false;
                }
            });
        }
        if (failure[0] != null)
        {
            throw failure[0];
        }
        while (inFlight[0]-- > 0)
        {
            check(node.next());
        }
        return new Result(keys.get(), bytes.get(), (System.nanoTime() - start) / 1_000_000);
    }

    private static void check(final NodeConnection.Answer answer) throws IOException
    {
        if (answer.status() != Status.OK)
        {
            throw new IOException("node refused a PUT: " + answer.status() + " " + answer.text());
        }
    }
}

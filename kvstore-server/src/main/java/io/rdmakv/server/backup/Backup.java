package io.rdmakv.server.backup;

import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
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
import java.util.function.LongSupplier;

/**
 * Backup and restore over the data port. A backup reads a slot range of a running node page by page from ONE
 * snapshot of its store (the checkpoint a catching-up replica gets), so it is the node's state at one instant, and
 * writes it into a new data directory: a store a node can start from as is, or that {@link #restore} loads into a
 * running node with PUTs (which replicate like any other write).
 *
 * <p>Both keep each key's record ({@link ValueRecord}): its data version and its expiry. A key whose expiry has passed
 * by the tool's clock is left out, by the backup and again by the restore (it is absent: a reader would never see it,
 * and restoring it would bring it back for the node's clock to expire again); the ones left out are counted. A restore
 * writes each record with a record PUT that keeps its data version ({@link RecordWriteRequestFlyweight#OP_PUT} with
 * the version in its expected-version field), so a client holding a version from before the backup can still
 * {@code replace} against the restored key.
 */
public final class Backup
{
    /** Keys and bytes moved; keys left out because they had expired. */
    public record Result(long keys, long bytes, long expired, long millis)
    {
    }

    /** Where {@link #scan} hands each entry: the client's key and the value. */
    @FunctionalInterface
    public interface EntrySink
    {
        void accept(byte[] key, byte[] value) throws IOException;
    }

    /** Where {@link #scanRecords} hands each entry: the client's key and its record ({@link ValueRecord}). */
    @FunctionalInterface
    public interface RecordSink
    {
        void accept(byte[] key, byte[] record) throws IOException;
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
        return backup(node, firstSlot, lastSlot, pageBytes, out, System::currentTimeMillis);
    }

    /** As above; a record whose expiry is at or before {@code clockMillis} when it is read is left out. */
    public static Result backup(final NodeConnection node, final int firstSlot, final int lastSlot,
        final int pageBytes, final Path out, final LongSupplier clockMillis) throws IOException
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
        final long[] counts = new long[3];
        try (RocksStore store = RocksStore.open(out, Durability.DEFAULT);
            BulkLoad load = store.bulkLoad(8L << 20))
        {
            scanRecords(node, firstSlot, lastSlot, pageBytes, (key, record) ->
            {
                if (ValueRecord.expired(ValueRecord.expiryMillis(record), clockMillis.getAsLong()))
                {
                    counts[2]++;
                    return;
                }
                load.putRecord(key, record);
                counts[0]++;
                counts[1] += key.length + (long)(record.length - ValueRecord.HEADER_LENGTH);
            });
        }
        return new Result(counts[0], counts[1], counts[2], (System.nanoTime() - start) / 1_000_000);
    }

    /**
     * Read slots {@code firstSlot..lastSlot} of the node behind {@code node} page by page from one snapshot of its
     * store (opened by the first page) and hand every value to {@code sink}, in the store's order (slot, then key),
     * leaving out the records whose expiry has passed by this machine's clock.
     *
     * @throws IOException when the node fails or refuses, or the sink fails.
     */
    public static void scan(final NodeConnection node, final int firstSlot, final int lastSlot, final int pageBytes,
        final EntrySink sink) throws IOException
    {
        scanRecords(node, firstSlot, lastSlot, pageBytes, (key, record) ->
        {
            if (!ValueRecord.expired(ValueRecord.expiryMillis(record), System.currentTimeMillis()))
            {
                sink.accept(key, ValueRecord.value(record));
            }
        });
    }

    /**
     * As {@link #scan} with every entry's whole record ({@link ValueRecord}: data version, expiry, value), expired
     * ones included.
     *
     * @throws IOException when the node fails or refuses, answers a damaged record, or the sink fails.
     */
    public static void scanRecords(final NodeConnection node, final int firstSlot, final int lastSlot,
        final int pageBytes, final RecordSink sink) throws IOException
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
                try
                {
                    ValueRecord.check(value);
                }
                catch (final ProtocolException ex)
                {
                    throw new IOException("the node's scan page holds a damaged record: " + ex.getMessage(), ex);
                }
                sink.accept(StoreKeys.clientKey(storeKey), value);
                cursor = storeKey;
                at += StoreSnapshot.ENTRY_HEADER_LENGTH + keyLength + valueLength;
            }
        }
    }

    /**
     * PUT every key of the backup store {@code in} into the node behind {@code node}, with its data version and
     * expiry; a key whose expiry has passed is left out.
     *
     * @throws IOException when the node fails or refuses a PUT.
     */
    public static Result restore(final Path in, final NodeConnection node) throws IOException
    {
        return restore(in, node, System::currentTimeMillis);
    }

    /** As above; a record whose expiry is at or before {@code clockMillis} when it is read is left out. */
    public static Result restore(final Path in, final NodeConnection node, final LongSupplier clockMillis)
        throws IOException
    {
        if (!Files.isDirectory(in))
        {
            throw new IOException("no backup directory " + in.toAbsolutePath());
        }
        final long start = System.nanoTime();
        final AtomicLong keys = new AtomicLong();
        final AtomicLong bytes = new AtomicLong();
        final AtomicLong expired = new AtomicLong();
        final IOException[] failure = new IOException[1];
        final int[] inFlight = {0};
        try (RocksStore store = RocksStore.open(in, Durability.DEFAULT))
        {
            store.forEachRecord((key, record) ->
            {
                final long expiry = ValueRecord.expiryMillis(record);
                if (ValueRecord.expired(expiry, clockMillis.getAsLong()))
                {
                    expired.incrementAndGet();
                    return true;
                }
                try
                {
                    if (inFlight[0] == RESTORE_WINDOW)
                    {
                        check(node.next());
                        inFlight[0]--;
                    }
                    node.sendRecordPut(key, ValueRecord.value(record), ValueRecord.dataVersion(record), expiry);
                    inFlight[0]++;
                    keys.incrementAndGet();
                    bytes.addAndGet(key.length + (long)(record.length - ValueRecord.HEADER_LENGTH));
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
        return new Result(keys.get(), bytes.get(), expired.get(), (System.nanoTime() - start) / 1_000_000);
    }

    private static void check(final NodeConnection.Answer answer) throws IOException
    {
        if (answer.status() != Status.OK)
        {
            throw new IOException("node refused a PUT: " + answer.status() + " " + answer.text());
        }
    }
}

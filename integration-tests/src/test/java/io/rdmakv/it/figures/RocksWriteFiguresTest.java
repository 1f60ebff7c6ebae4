package io.rdmakv.it.figures;

import io.rdmakv.it.softroce.SoftRoceGuest;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreKeys;
import org.HdrHistogram.Histogram;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.RocksDBException;
import org.rocksdb.WriteBatch;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Map;

import static io.rdmakv.it.figures.GuestFigures.KEYS;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RocksDB write of a PUT measured alone, in the guest boot that measures the PUT through the store (issue 5's
 * PUT target is PUT p50 against two sends plus this), written the way the server's request thread writes it:
 * {@link RocksStore} opened with the server's default durability ({@link Durability#DEFAULT}: WAL on, no sync),
 * the PUT's key and value copied from direct buffers into a {@link WriteBatch} and written with
 * {@link RocksStore#write(WriteBatch)} (one PUT per batch, as a client with one request in flight gives the
 * server's {@code PutBatch}), into a directory on the same file system as the server's data directory in the store
 * figures (the guest's {@code /tmp}). Same keys, value size and pattern as {@link VerbsStoreFiguresTest}: the first
 * write of each key, one round of overwrites as warm-up, then {@value #WRITES} measured overwrites. The timed span
 * is what the server times for the write: {@code batch.put} plus {@code write}. Records
 * {@code results/rocksdb.properties}; asserts only that every key reads back its last value.
 */
@Tag(SoftRoceGuest.TAG)
class RocksWriteFiguresTest
{
    private static final int WRITES = 5_000;

    @Test
    @Timeout(300)
    void shouldRecordTheRocksDbWriteOfAPutMeasuredAlone(@TempDir final Path tmp) throws IOException, RocksDBException
    {
        final ByteBuffer key = ByteBuffer.allocateDirect(64);
        // A stored value is a record: its header (data version, expiry), then the client's bytes, as the node writes it.
        final ByteBuffer value = ByteBuffer.allocateDirect(ValueRecord.HEADER_LENGTH + GuestFigures.VALUE_BYTES);
        final Histogram writes = GuestFigures.nanosHistogram();
        final Histogram unmeasured = GuestFigures.nanosHistogram();
        final byte[][] last = new byte[KEYS][];
        try (RocksStore store = RocksStore.open(tmp.resolve("rocks"), Durability.DEFAULT);
            WriteBatch batch = new WriteBatch())
        {
            assertTrue(store.writesInline(), "the server's default durability writes on its request thread");
            // Round 0 creates the keys, round 1 is the warm-up, the rounds after it are measured.
            for (int n = 0; n < 2 * KEYS + WRITES; n++)
            {
                final int i = n % KEYS;
                last[i] = GuestFigures.value(n / KEYS, i);
                write(store, batch, key, GuestFigures.key(i), value, last[i], n < 2 * KEYS ? unmeasured : writes);
            }
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(last[i], store.get(GuestFigures.key(i)), "key " + i);
            }
        }

        final Map<String, String> figures = GuestFigures.figures();
        GuestFigures.putLatency(figures, "rocksdb.write", writes);
        figures.put("rocksdb.durability", Durability.DEFAULT.name());
        figures.put("rocksdb.wal", "on, no sync");
        figures.put("rocksdb.value.bytes", Integer.toString(GuestFigures.VALUE_BYTES));
        figures.put("rocksdb.keys", Integer.toString(KEYS));
        GuestFigures.record("rocksdb.properties",
            "RocksDB write of one PUT alone (WriteBatch of one, as the server writes it), same boot as perftest",
            figures);
    }

    /** One PUT's write: key and value copied into direct buffers (untimed, the server receives them there). */
    private static void write(final RocksStore store, final WriteBatch batch, final ByteBuffer key,
        final byte[] keyBytes, final ByteBuffer value, final byte[] valueBytes, final Histogram nanos)
        throws RocksDBException
    {
        key.clear();
        key.put(StoreKeys.encode(keyBytes)).flip(); // the store's key: slot prefix, as the server writes it
        value.clear();
        ValueRecord.writeHeader(new UnsafeBuffer(value), 0, 1, 0);
        value.position(ValueRecord.HEADER_LENGTH);
        value.put(valueBytes).flip();
        batch.clear();
        final long start = System.nanoTime();
        store.addPut(batch, key, value);
        store.write(batch);
        nanos.recordValue(System.nanoTime() - start);
    }
}

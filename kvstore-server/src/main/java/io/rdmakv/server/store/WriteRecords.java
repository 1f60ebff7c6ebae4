package io.rdmakv.server.store;

import org.agrona.DirectBuffer;
import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;
import org.rocksdb.WriteBatch;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The replication state a node keeps with its data, in the column family {@value #FAMILY} (never seen by scans,
 * checkpoints, catch-ups or backups, which read {@value RocksStore#KEYS_FAMILY} only): the answer recorded for each
 * numbered client write, and the last replication sequence applied from each sender. Each entry goes into the same
 * {@link WriteBatch} as the write it describes, so after a crash the store holds a record exactly when it holds the
 * write: a restarted node answers a retry as before the restart, and knows what it applied from each primary.
 *
 * <pre>
 *   'w' writer (u64), write number mod 65,536 (u16) -> number (u64), completed-below (u64), answer (u8: a Status)
 *                                                      [, data version (u64), counter value length (u8), its bytes]
 *   's' sender node (u32)                                              -> incarnation (u64), last sequence (u64)
 * </pre>
 * A writer's records are keyed by their number modulo 65,536 ({@code WriteIds.MAX_WRITES_PER_WRITER}): a new write
 * overwrites one at least 65,536 numbers older, long answered, so a record costs one entry and no deletion. Records
 * below the writer's completed-below mark are skipped when loading. A PUT's record carries the data version it wrote
 * and, for a counter, its new value (decimal, at most 20 bytes), so a retry after a restart is answered as the first
 * attempt was, value included; a record of 17 bytes (written before) has neither. Big-endian keys and values. The batch-building
 * methods reuse direct scratch buffers: one thread (the request thread) at a time.
 */
public final class WriteRecords
{
    /** The column family's name. */
    public static final String FAMILY = "write-state";
    /** Records per writer on disk at most (the number's low 16 bits are the key). */
    public static final int RECORDS_PER_WRITER = 1 << 16;

    private static final byte WRITE = 'w';
    private static final byte SEQUENCE = 's';
    private static final int WRITE_KEY = 11;
    private static final int WRITE_VALUE = 17;
    /** With the data version and a counter's value (at most 20 bytes). */
    private static final int WRITE_VALUE_MAX = WRITE_VALUE + 8 + 1 + 20;
    private static final int SEQUENCE_KEY = 5;
    private static final int SEQUENCE_VALUE = 16;

    private final RocksDB db;
    private final ColumnFamilyHandle family;
    private final ByteBuffer key = ByteBuffer.allocateDirect(WRITE_KEY).order(ByteOrder.BIG_ENDIAN);
    private final ByteBuffer value = ByteBuffer.allocateDirect(WRITE_VALUE_MAX).order(ByteOrder.BIG_ENDIAN);

    WriteRecords(final RocksDB db, final ColumnFamilyHandle family)
    {
        this.db = db;
        this.family = family;
    }

    /** What {@link #load} finds. */
    public interface Visitor
    {
        /**
         * A write's record at or above its writer's completed-below mark: {@code dataVersion} the version a PUT wrote
         * (0: none known), {@code counter} a counter's new value as its record held it (null: none).
         */
        void write(long writer, long sequence, long completedBelow, int answer, long dataVersion, byte[] counter);

        /** The last replication sequence applied from {@code sender}'s {@code incarnation}. */
        void applied(int sender, long incarnation, long sequence);
    }

    /** Add the record of write {@code sequence} of {@code writer} (answered {@code answer}) to {@code batch}. */
    public void addWrite(final WriteBatch batch, final long writer, final long sequence, final long completedBelow,
        final int answer) throws RocksDBException
    {
        addWrite(batch, writer, sequence, completedBelow, answer, 0, null, 0, 0);
    }

    /**
     * As above, with the data version a PUT wrote ({@code dataVersion}, 0: none) and a counter's new value
     * ({@code counterLength} bytes of {@code counter}, at most 20; 0: none).
     */
    public void addWrite(final WriteBatch batch, final long writer, final long sequence, final long completedBelow,
        final int answer, final long dataVersion, final DirectBuffer counter, final int counterIndex,
        final int counterLength) throws RocksDBException
    {
        writeKey(writer, sequence);
        value.clear();
        value.putLong(sequence).putLong(completedBelow).put((byte)answer);
        if (dataVersion != 0)
        {
            final int length = counterLength <= 20 ? counterLength : 0;
            value.putLong(dataVersion).put((byte)length);
            for (int i = 0; i < length; i++)
            {
                value.put(counter.getByte(counterIndex + i));
            }
        }
        value.flip();
        batch.put(family, key, value);
    }

    /** Add the removal of write {@code sequence}'s record (a reconcile undid it, or it failed) to {@code batch}. */
    public void addForget(final WriteBatch batch, final long writer, final long sequence) throws RocksDBException
    {
        writeKey(writer, sequence);
        batch.delete(family, key);
    }

    /** Add the removal of every record of {@code writer} (forgotten: idle too long) to {@code batch}. */
    public void addForgetWriter(final WriteBatch batch, final long writer) throws RocksDBException
    {
        final byte[] from = ByteBuffer.allocate(WRITE_KEY).put(WRITE).putLong(writer).putShort((short)0).array();
        final byte[] to = ByteBuffer.allocate(9).put(WRITE).putLong(writer + 1).array();
        batch.deleteRange(family, from, writer == -1L ? new byte[] {WRITE + 1} : to);
    }

    /** Add "applied up to {@code sequence} of {@code sender}'s {@code incarnation}" to {@code batch}. */
    public void addApplied(final WriteBatch batch, final int sender, final long incarnation, final long sequence)
        throws RocksDBException
    {
        key.clear();
        key.put(SEQUENCE).putInt(sender).flip();
        value.clear();
        value.putLong(incarnation).putLong(sequence).flip();
        batch.put(family, key, value);
    }

    /**
     * Hand {@code visitor} every sender's last applied sequence and every write record at or above its writer's
     * completed-below mark (the highest any of its records carries). Reads the whole family: at start only.
     */
    public void load(final Visitor visitor)
    {
        final java.util.Map<Long, Long> below = new java.util.HashMap<>();
        try (RocksIterator it = db.newIterator(family))
        {
            for (it.seekToFirst(); it.isValid(); it.next())
            {
                final ByteBuffer k = ByteBuffer.wrap(it.key());
                final ByteBuffer v = ByteBuffer.wrap(it.value());
                if (k.get(0) == WRITE && k.capacity() == WRITE_KEY && isWriteValue(v))
                {
                    below.merge(k.getLong(1), v.getLong(8), Math::max);
                }
                else if (k.get(0) == SEQUENCE && k.capacity() == SEQUENCE_KEY && v.capacity() == SEQUENCE_VALUE)
                {
                    visitor.applied(k.getInt(1), v.getLong(0), v.getLong(8));
                }
            }
            for (it.seekToFirst(); it.isValid(); it.next())
            {
                final ByteBuffer k = ByteBuffer.wrap(it.key());
                final ByteBuffer v = ByteBuffer.wrap(it.value());
                if (k.get(0) == WRITE && k.capacity() == WRITE_KEY && isWriteValue(v) &&
                    v.getLong(0) >= below.get(k.getLong(1)))
                {
                    final long dataVersion = v.capacity() > WRITE_VALUE ? v.getLong(WRITE_VALUE) : 0;
                    byte[] counter = null;
                    if (v.capacity() > WRITE_VALUE && (v.get(WRITE_VALUE + 8) & 0xFF) > 0)
                    {
                        counter = new byte[v.get(WRITE_VALUE + 8) & 0xFF];
                        v.get(WRITE_VALUE + 9, counter);
                    }
                    visitor.write(k.getLong(1), v.getLong(0), v.getLong(8), v.get(16) & 0xFF, dataVersion, counter);
                }
            }
        }
    }

    /** A write record's value: 17 bytes, or with a data version and a counter value of its stated length. */
    private static boolean isWriteValue(final ByteBuffer v)
    {
        final int length = v.capacity();
        return length == WRITE_VALUE || length >= WRITE_VALUE + 9 && length <= WRITE_VALUE_MAX &&
            length == WRITE_VALUE + 9 + (v.get(WRITE_VALUE + 8) & 0xFF);
    }

    private void writeKey(final long writer, final long sequence)
    {
        key.clear();
        key.put(WRITE).putLong(writer).putShort((short)(sequence & (RECORDS_PER_WRITER - 1))).flip();
    }
}

package io.rdmakv.server.store;

import org.rocksdb.ColumnFamilyHandle;
import org.rocksdb.RocksDB;
import org.rocksdb.RocksDBException;
import org.rocksdb.RocksIterator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Which key-to-slot mapping a store's keys were written with ({@link StoreKeys}: every RocksDB key starts with its
 * key's cluster slot): the file {@value #FILE} in the data directory, one line {@value #MAPPING}. The mapping is Redis
 * Cluster's (CRC16 of the key's hash tag); stores written before it placed keys by a slot derived from XXH64 and hold
 * no such file. Opening one of those would find none of its keys under the slots this build computes, so it is refused
 * with what to do, before anything is written; a new (empty) store gets the file when it is opened.
 */
final class SlotHashMark
{
    /** The file's name in the data directory. */
    static final String FILE = "rdmakv-slot-hash";
    /** The mapping this build writes. */
    static final String MAPPING = "redis-cluster-crc16";

    private SlotHashMark()
    {
    }

    /**
     * Check the store's mapping before the store is used, and record it in a store that has none yet.
     *
     * @param keys the slot-prefixed keys' column families (bare values, value records).
     * @throws StoreException naming the directory and the way out when the store was written with another mapping.
     */
    static void check(final Path directory, final RocksDB db, final ColumnFamilyHandle... keys)
    {
        final String recorded;
        try
        {
            recorded = read(directory);
        }
        catch (final IOException ex)
        {
            throw new StoreException("cannot read " + directory.resolve(FILE).toAbsolutePath() + ": " + ex, ex);
        }
        if (MAPPING.equals(recorded))
        {
            return;
        }
        if (recorded != null)
        {
            throw new StoreException(directory.resolve(FILE).toAbsolutePath() + " names the key-to-slot mapping '" +
                recorded + "', which this build does not know (it writes '" + MAPPING + "'); refusing to open " +
                directory.toAbsolutePath());
        }
        if (holdsKeys(db, keys))
        {
            throw new StoreException("the data directory " + directory.toAbsolutePath() + " was written by an " +
                "earlier rdmakv that placed keys by an XXH64-derived cluster slot; this build uses Redis Cluster's " +
                "slot (CRC16 of the key's hash tag) and would not find them. Refusing to start. To carry the data " +
                "over: start a node of the earlier version on this directory, 'rdmakv backup --cluster' it, and " +
                "'rdmakv restore --cluster' the backup into a node of this version on a new directory " +
                "(docs/operations.md)");
        }
        try
        {
            DurableFiles.replace(directory, FILE, (MAPPING + "\n").getBytes(StandardCharsets.US_ASCII));
        }
        catch (final IOException ex)
        {
            throw new StoreException("cannot write " + directory.resolve(FILE).toAbsolutePath() + ": " + ex, ex);
        }
    }

    /** The recorded mapping, or null when the file does not exist. */
    static String read(final Path directory) throws IOException
    {
        try
        {
            return Files.readString(directory.resolve(FILE), StandardCharsets.US_ASCII).strip();
        }
        catch (final NoSuchFileException ex)
        {
            return null;
        }
    }

    private static boolean holdsKeys(final RocksDB db, final ColumnFamilyHandle... families)
    {
        for (final ColumnFamilyHandle family : families)
        {
            if (holdsKeys(db, family))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean holdsKeys(final RocksDB db, final ColumnFamilyHandle keys)
    {
        try (RocksIterator it = db.newIterator(keys))
        {
            it.seekToFirst();
            final boolean any = it.isValid();
            it.status();
            return any;
        }
        catch (final RocksDBException ex)
        {
            throw new StoreException("cannot read the store's keys: " + ex.getMessage(), ex);
        }
    }
}

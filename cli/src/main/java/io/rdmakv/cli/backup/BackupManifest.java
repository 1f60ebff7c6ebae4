package io.rdmakv.cli.backup;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.rdmakv.protocol.ProtocolLimits;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;

/**
 * {@code manifest.json} of a cluster backup: the map epoch the backup ends at, and per slot range its epoch and
 * primary when it was read, its file, key count, bytes and SHA-256. The ranges cover every slot once.
 *
 * @param format    {@value #FORMAT}: range files hold each key's record (data version, expiry, value; keys expired at
 *                  the backup left out); 1 (read, no longer written): values only.
 * @param createdAt when the backup finished (ISO-8601, UTC).
 * @param seed      the node the map was first read from.
 * @param mapEpoch  the configuration epoch of the map every range was checked against.
 * @param keys      keys of all ranges.
 * @param bytes     key and value bytes of all ranges (format 2: key and record bytes).
 * @param ranges    the ranges, by first slot.
 */
record BackupManifest(int format, String createdAt, String seed, long mapEpoch, long keys, long bytes,
    List<Range> ranges)
{
    static final int FORMAT = 2;
    /** The first format: range files of values alone (no data versions, no expiry); still restored. */
    static final int VALUES_ONLY = 1;
    static final String FILE_NAME = "manifest.json";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
        .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

    /**
     * One range as backed up.
     *
     * @param firstSlot  first slot, inclusive.
     * @param lastSlot   last slot, inclusive.
     * @param epoch      the range's epoch when its snapshot was read.
     * @param primary    the node it was read from (its primary at that epoch).
     * @param file       the range file, relative to the backup directory.
     * @param keys       entries in the file.
     * @param bytes      key and value bytes in the file.
     * @param sha256     SHA-256 of the file ({@link RangeFile}).
     * @param snapshotMs how long the range's read took.
     */
    record Range(int firstSlot, int lastSlot, long epoch, int primary, String file, long keys, long bytes,
        String sha256, long snapshotMs)
    {
        String hashSlots()
        {
            return firstSlot + "-" + lastSlot;
        }
    }

    BackupManifest
    {
        ranges = ranges.stream().sorted(Comparator.comparingInt(Range::firstSlot)).toList();
    }

    /** Whether the range files hold records ({@link io.rdmakv.protocol.layout.ValueRecord}), not values alone. */
    boolean records()
    {
        return format >= FORMAT;
    }

    void write(final Path dir) throws IOException
    {
        final Path tmp = dir.resolve(FILE_NAME + ".tmp");
        JSON.writeValue(tmp.toFile(), this);
        Files.move(tmp, dir.resolve(FILE_NAME), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * The manifest of the backup in {@code dir}, checked: a known format, ranges covering every slot once, files
     * inside the directory.
     *
     * @throws IOException naming what is wrong.
     */
    static BackupManifest read(final Path dir) throws IOException
    {
        final Path file = dir.toAbsolutePath().normalize().resolve(FILE_NAME);
        final BackupManifest manifest;
        try
        {
            manifest = JSON.readValue(file.toFile(), BackupManifest.class);
        }
        catch (final NoSuchFileException | FileNotFoundException ex)
        {
            throw new IOException("no " + FILE_NAME + " in " + file.getParent() + ": not a cluster backup (a " +
                "node's backup, a data directory, is restored with --server)", ex);
        }
        catch (final IOException ex)
        {
            throw new IOException(file + " cannot be read: " + ex.getMessage(), ex);
        }
        manifest.check(file);
        return manifest;
    }

    private void check(final Path file) throws IOException
    {
        if (format != FORMAT && format != VALUES_ONLY)
        {
            throw new IOException(file + ": format " + format + ", this build reads formats " + VALUES_ONLY +
                " and " + FORMAT);
        }
        if (ranges == null || ranges.isEmpty())
        {
            throw new IOException(file + " lists no ranges");
        }
        int next = 0;
        for (final Range r : ranges)
        {
            if (r.firstSlot() != next || r.lastSlot() < r.firstSlot() || r.file() == null ||
                r.sha256() == null || r.keys() < 0)
            {
                throw new IOException(file + ": range " + r.hashSlots() + " does not follow slot " + (next - 1) +
                    " or lacks its file, count or checksum: the ranges must cover the slots once, in order");
            }
            final Path data = file.getParent().resolve(r.file()).normalize();
            if (!file.getParent().equals(data.getParent()))
            {
                throw new IOException(file + ": range " + r.hashSlots() + " names a file outside the backup: " + r.file());
            }
            next = r.lastSlot() + 1;
        }
        if (next != ProtocolLimits.HASH_SLOT_COUNT)
        {
            throw new IOException(file + ": the ranges end at slot " + (next - 1) + ", not " +
                (ProtocolLimits.HASH_SLOT_COUNT - 1));
        }
    }
}

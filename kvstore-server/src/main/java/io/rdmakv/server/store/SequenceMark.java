package io.rdmakv.server.store;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * How far a store's RocksDB sequence number had reached, recorded outside RocksDB: the file {@value #FILE} in the
 * data directory, one line {@code sequence <n> recorded <instant> at <event>}, written to a temporary file, synced
 * and renamed over the old one. A store records it when it opens, about once a second while its sequence moves
 * ({@link SequenceMarker#SEQUENCE_MARK_INTERVAL_MILLIS}, never per write) and when it closes.
 *
 * <p>What it makes knowable: RocksDB opened under {@code store.walRecovery=tolerate-tail} drops a write-ahead log cut
 * short without telling how many writes it held (a cut looks like a torn last record). If the sequence RocksDB
 * recovered is below the one recorded here, at least that many writes the store had applied (and, a write being
 * applied before it is answered, acknowledged or about to be) are gone. Writes applied after the last record cannot
 * be counted: the report says "at least". Written outside RocksDB on purpose: a mark written into RocksDB would go
 * through the same WAL and be lost with it.
 *
 * @param sequence   the RocksDB sequence number recorded.
 * @param recordedAt when.
 * @param event      why it was recorded then ({@code open}, {@code periodic}, {@code close}).
 */
public record SequenceMark(long sequence, Instant recordedAt, String event)
{
    /** The file's name in the data directory. */
    public static final String FILE = "rdmakv-sequence-mark";

    /**
     * The mark recorded in {@code directory}.
     *
     * @return empty when there is none (a store of an earlier version, a new directory) or it cannot be parsed.
     * @throws IOException when it exists but cannot be read.
     */
    public static Optional<SequenceMark> read(final Path directory) throws IOException
    {
        final String line;
        try
        {
            line = Files.readString(directory.resolve(FILE), StandardCharsets.US_ASCII).strip();
        }
        catch (final NoSuchFileException ex)
        {
            return Optional.empty();
        }
        final String[] words = line.split(" ");
        if (words.length != 6 || !words[0].equals("sequence") || !words[2].equals("recorded") ||
            !words[4].equals("at"))
        {
            return Optional.empty();
        }
        try
        {
            return Optional.of(new SequenceMark(Long.parseLong(words[1]), Instant.parse(words[3]), words[5]));
        }
        catch (final NumberFormatException | DateTimeParseException ex)
        {
            return Optional.empty();
        }
    }

    /**
     * Record {@code this} in {@code directory}: a temporary file, synced, renamed over {@value #FILE}, the directory
     * synced (a small write, at most about once a second).
     */
    void write(final Path directory) throws IOException
    {
        DurableFiles.replace(directory, FILE, ("sequence " + sequence + " recorded " + recordedAt + " at " + event +
            "\n").getBytes(StandardCharsets.US_ASCII));
    }

    /**
     * What a store lost, when RocksDB recovered less than this mark says it had.
     *
     * @param recovered RocksDB's latest sequence number after opening.
     * @param file      the mark's file, named in the report.
     * @param recovery  the recovery mode RocksDB opened with.
     * @return the ERROR line, or empty when nothing recorded is missing.
     */
    Optional<String> lossReport(final long recovered, final Path file, final WalRecovery recovery)
    {
        if (recovered >= sequence)
        {
            return Optional.empty();
        }
        return Optional.of("the store lost writes it had applied: at least " + (sequence - recovered) +
            " store entries lost (one per key written or deleted, one more per client write id recorded with it, one " +
            "more per replication sequence a replica records) (sequence " + recovered + " recovered, " + sequence + " recorded at " + recordedAt + " at " +
            event + " in " + file + "; writes applied after that record cannot be counted). RocksDB opened under " +
            "store.walRecovery=" + recovery.setting() + "; the usual cause is a write-ahead log cut short or that " +
            "lost unsynced data (a power loss under durability DEFAULT, a bad copy), or an older copy of the data " +
            "directory. The node starts with what survived: a cluster node catches its ranges up from its peers, a " +
            "single node serves without those writes (restore them from a backup or a replica if they matter)");
    }
}

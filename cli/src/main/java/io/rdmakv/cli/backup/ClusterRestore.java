package io.rdmakv.cli.backup;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import io.rdmakv.client.Versioned;
import io.rdmakv.protocol.layout.ValueRecord;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * A cluster backup written into a running cluster of any size through {@link KvClient}, which routes every key by
 * its slot and follows redirects: first every range file is checked against the manifest (count and SHA-256, so a
 * damaged backup writes nothing), then each file's entries are PUT in batches ({@code batch} in flight, the progress
 * marker rewritten after each), then every key is read back and the values' digest compared with the manifest's.
 * A backup of format 2 holds records: each key is written with the data version and expiry it had
 * ({@link KvClient#restoreAsync}, admin on a node with users) and read back with its version; a key whose expiry
 * passed since the backup is neither written nor read back (counted). Format 1 (values alone) is PUT as before.
 */
final class ClusterRestore
{
    /** What a restore did. */
    record Result(long written, long resumedPast, long verified, long expired, long millis)
    {
    }

    /** The cluster does not hold what the backup does (after the writes). */
    static final class MismatchException extends Exception
    {
        MismatchException(final String message)
        {
            super(message);
        }
    }

    private static final int EXAMPLES = 5;

    private final KvClient client;
    private final Path dir;
    private final Path progressFile;
    private final String target;
    private final boolean restart;
    private final int batch;
    private final PrintStream log;
    /** Whether the backup's range files hold records (format 2): each key restored with its version and expiry. */
    private boolean records;
    /** Keys whose expiry passed since the backup: not written (absent to every reader), nor verified. */
    private long expired;

    ClusterRestore(final KvClient client, final Path dir, final Path progressFile, final String target,
        final boolean restart, final int batch, final PrintStream log)
    {
        this.client = client;
        this.dir = dir.toAbsolutePath().normalize();
        this.progressFile = progressFile;
        this.target = target;
        this.restart = restart;
        this.batch = batch;
        this.log = log;
    }

    /**
     * @throws IOException       when the backup is damaged or unreadable, the marker is another restore's, or the
     *                           cluster refuses or fails a write.
     * @throws MismatchException when the values read back differ from the backup's.
     */
    Result run() throws IOException, MismatchException
    {
        final long start = System.nanoTime();
        final BackupManifest manifest = BackupManifest.read(dir);
        records = manifest.records();
        checkFiles(manifest);
        RestoreProgress progress = restart ?
            new RestoreProgress(RestoreProgress.identity(manifest, target), Map.of()) :
            RestoreProgress.readOrStart(progressFile, manifest, target);
        long written = 0;
        long resumedPast = 0;
        for (final BackupManifest.Range range : manifest.ranges())
        {
            final long skip = Math.min(progress.doneIn(range.file()), range.keys());
            resumedPast += skip;
            if (skip == range.keys())
            {
                continue;
            }
            if (skip > 0)
            {
                log.printf("range %s: continuing after %d of %d keys (%s)%n", range.hashSlots(), skip, range.keys(),
                    progressFile);
            }
            final RangeWrites writes = new RangeWrites(range, skip, progress);
            RangeFile.read(dir.resolve(range.file()), writes::add);
            progress = writes.flush();
            written += range.keys() - skip;
            log.printf("range %s: %d keys written%n", range.hashSlots(), range.keys() - skip);
        }
        final long verified = verify(manifest);
        return new Result(written - expired, resumedPast, verified, expired, (System.nanoTime() - start) / 1_000_000);
    }

    private void checkFiles(final BackupManifest manifest) throws IOException
    {
        for (final BackupManifest.Range range : manifest.ranges())
        {
            final RangeFile.Summary file = RangeFile.read(dir.resolve(range.file()), (k, v) -> { });
            if (file.keys() != range.keys() || !file.sha256().equals(range.sha256()))
            {
                throw new IOException("the backup is damaged, nothing was written: " + range.file() + " holds " +
                    file.keys() + " keys with SHA-256 " + file.sha256() + ", the manifest says " + range.keys() +
                    " keys with " + range.sha256());
            }
        }
    }

    /** One range's PUTs: a batch in flight, then the marker. */
    private final class RangeWrites
    {
        private final BackupManifest.Range range;
        private final long skip;
        private final List<CompletableFuture<?>> inFlight = new ArrayList<>();
        private final List<byte[]> keys = new ArrayList<>();
        private RestoreProgress progress;
        private long seen;

        RangeWrites(final BackupManifest.Range range, final long skip, final RestoreProgress progress)
        {
            this.range = range;
            this.skip = skip;
            this.progress = progress;
        }

        void add(final byte[] key, final byte[] value) throws IOException
        {
            if (seen < skip)
            {
                seen++;
                return;
            }
            final CompletableFuture<?> put;
            try
            {
                if (records)
                {
                    if (ValueRecord.expired(ValueRecord.expiryMillis(value), System.currentTimeMillis()))
                    {
                        seen++; // expired since the backup: absent to every reader, not brought back
                        expired++;
                        return;
                    }
                    put = client.restoreAsync(key, ValueRecord.value(value), ValueRecord.dataVersion(value),
                        ValueRecord.expiryMillis(value));
                }
                else
                {
                    put = client.putAsync(key, value);
                }
            }
            catch (final IllegalArgumentException ex)
            {
                flush();
                throw new IOException("the target cluster refuses key " + printable(key) + " (range " + range.hashSlots() +
                    "): " + ex.getMessage() + "; the keys before it are written (" + progressFile + ")", ex);
            }
            seen++;
            keys.add(key);
            inFlight.add(put);
            if (inFlight.size() == batch)
            {
                flush();
            }
        }

        RestoreProgress flush() throws IOException
        {
            for (int i = 0; i < inFlight.size(); i++)
            {
                try
                {
                    inFlight.get(i).join();
                }
                catch (final CompletionException ex)
                {
                    throw new IOException("the cluster did not take the PUT of key " + printable(keys.get(i)) +
                        " (range " + range.hashSlots() + "): " + failure(ex) + "; " + progress.doneIn(range.file()) +
                        " of its keys are acknowledged; run the restore again to continue from " + progressFile,
                        ex.getCause());
                }
            }
            inFlight.clear();
            keys.clear();
            progress = progress.with(range.file(), seen);
            progress.write(progressFile);
            return progress;
        }
    }

    /** Reads every key back; returns how many. */
    private long verify(final BackupManifest manifest) throws IOException, MismatchException
    {
        long verified = 0;
        final List<String> problems = new ArrayList<>();
        for (final BackupManifest.Range range : manifest.ranges())
        {
            final RangeCheck check = new RangeCheck();
            RangeFile.read(dir.resolve(range.file()), check::add);
            check.flush();
            final RangeFile.Summary readBack = check.digest.summary();
            verified += check.checked;
            // Keys expired since the backup are neither restored nor read back: then only the counts compare.
            if (check.missing > 0 || check.different > 0 || readBack.keys() != range.keys() - check.expired ||
                check.expired == 0 && !readBack.sha256().equals(range.sha256()))
            {
                problems.add("range " + range.hashSlots() + ": " + readBack.keys() + " of " + range.keys() +
                    " keys found, " + check.missing + " missing, " + check.different + " with another value, " +
                    "SHA-256 read back " + readBack.sha256() + " against " + range.sha256() +
                    (check.examples.isEmpty() ? "" : " (for example " + String.join(", ", check.examples) + ")"));
            }
        }
        if (!problems.isEmpty())
        {
            throw new MismatchException("the cluster does not hold the backup's keys and values (was it written to " +
                "meanwhile?):\n  " + String.join("\n  ", problems));
        }
        return verified;
    }

    /** One range's read-back: GETs a batch at a time, digested as the range file is. */
    private final class RangeCheck
    {
        final RangeFile.Digest digest = new RangeFile.Digest();
        final List<String> examples = new ArrayList<>();
        private final List<byte[]> keys = new ArrayList<>();
        private final List<byte[]> values = new ArrayList<>();
        long checked;
        long missing;
        long different;
        long expired;

        void add(final byte[] key, final byte[] value) throws IOException
        {
            if (records && ValueRecord.expired(ValueRecord.expiryMillis(value), System.currentTimeMillis()))
            {
                expired++;
                return;
            }
            keys.add(key);
            values.add(value);
            if (keys.size() == batch)
            {
                flush();
            }
        }

        void flush() throws IOException
        {
            if (keys.isEmpty())
            {
                return;
            }
            if (records)
            {
                flushRecords();
                return;
            }
            final List<byte[]> got;
            try
            {
                got = client.multiGet(keys);
            }
            catch (final KvException ex)
            {
                throw new IOException("reading the restored keys back failed: " + ex.getMessage(), ex);
            }
            for (int i = 0; i < keys.size(); i++)
            {
                checked++;
                final byte[] value = got.get(i);
                if (value == null)
                {
                    missing++;
                    example(keys.get(i), "missing");
                    continue;
                }
                digest.add(keys.get(i), value);
                if (!Arrays.equals(value, values.get(i)))
                {
                    different++;
                    example(keys.get(i), "another value");
                }
            }
            keys.clear();
            values.clear();
        }

        /**
         * Records: each key's value and data version read back ({@code getWithVersion}) against the backup's; the
         * digest is of the record rebuilt from them with the backup's expiry (the expiry itself is not read back).
         */
        private void flushRecords() throws IOException
        {
            final List<CompletableFuture<Versioned>> got = new ArrayList<>(keys.size());
            for (final byte[] key : keys)
            {
                got.add(client.getWithVersionAsync(key));
            }
            for (int i = 0; i < keys.size(); i++)
            {
                final Versioned read;
                try
                {
                    read = got.get(i).join();
                }
                catch (final CompletionException ex)
                {
                    throw new IOException("reading the restored keys back failed: " + failure(ex), ex.getCause());
                }
                checked++;
                final byte[] record = values.get(i);
                if (read == null)
                {
                    missing++;
                    example(keys.get(i), "missing");
                    continue;
                }
                digest.add(keys.get(i), ValueRecord.of(read.value(), read.version(), ValueRecord.expiryMillis(record)));
                if (!Arrays.equals(read.value(), ValueRecord.value(record)) ||
                    read.version() != ValueRecord.dataVersion(record))
                {
                    different++;
                    example(keys.get(i), "another value or data version");
                }
            }
            keys.clear();
            values.clear();
        }

        private void example(final byte[] key, final String what)
        {
            if (examples.size() < EXAMPLES)
            {
                examples.add(printable(key) + ": " + what);
            }
        }
    }

    private static String failure(final CompletionException ex)
    {
        final Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    /** A key as text when it is UTF-8 without control characters, else as hex. */
    static String printable(final byte[] key)
    {
        try
        {
            final String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(key)).toString();
            if (text.chars().noneMatch(Character::isISOControl))
            {
                return "'" + text + "'";
            }
        }
        catch (final CharacterCodingException ex)
        {
            // hex below
        }
        return "0x" + HexFormat.of().formatHex(key);
    }
}

package io.rdmakv.cli.backup;

import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.TreeMap;

/**
 * The progress marker of a cluster restore ({@code restore-progress.json}): which backup it restores (the manifest's
 * map epoch and creation time) into which cluster (the seeds as given) and, per range file, how many of its entries, in file order, the cluster
 * acknowledged. Rewritten atomically after every batch, so a rerun skips what is surely written and writes again
 * at most one batch per range (a PUT of the same value again changes nothing).
 *
 * @param backup the backup and target it belongs to ({@link #identity}).
 * @param done   acknowledged entries per range file.
 */
record RestoreProgress(String backup, Map<String, Long> done)
{
    static final String FILE_NAME = "restore-progress.json";

    private static final ObjectMapper JSON = new ObjectMapper();

    RestoreProgress
    {
        done = done == null ? new TreeMap<>() : new TreeMap<>(done);
    }

    /** The backup and the cluster a restore writes it into (as the command line named it). */
    static String identity(final BackupManifest manifest, final String target)
    {
        return "backup of map epoch " + manifest.mapEpoch() + " created " + manifest.createdAt() + " into " + target;
    }

    long doneIn(final String file)
    {
        return done.getOrDefault(file, 0L);
    }

    RestoreProgress with(final String file, final long entries)
    {
        final Map<String, Long> next = new TreeMap<>(done);
        next.put(file, entries);
        return new RestoreProgress(backup, next);
    }

    void write(final Path file) throws IOException
    {
        final Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
        JSON.writeValue(tmp.toFile(), this);
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * The progress in {@code file} for {@code manifest}'s backup, or a fresh one when there is none.
     *
     * @throws IOException when the file cannot be read or belongs to another backup.
     */
    static RestoreProgress readOrStart(final Path file, final BackupManifest manifest, final String target)
        throws IOException
    {
        final String identity = identity(manifest, target);
        if (!Files.exists(file))
        {
            return new RestoreProgress(identity, Map.of());
        }
        final RestoreProgress progress;
        try
        {
            progress = JSON.readValue(file.toFile(), RestoreProgress.class);
        }
        catch (final IOException ex)
        {
            throw new IOException("the progress marker " + file + " cannot be read (" + ex.getMessage() + "): " +
                "delete it, or pass --restart, to restore from the beginning", ex);
        }
        if (!identity.equals(progress.backup()))
        {
            throw new IOException("the progress marker " + file + " is of another restore (" + progress.backup() +
                "; this one: " + identity + "): delete it, or pass --restart, to restore from the beginning");
        }
        return progress;
    }
}

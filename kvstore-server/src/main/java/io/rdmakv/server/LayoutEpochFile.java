package io.rdmakv.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** The pool's layout epoch, kept in a small file of the data directory: one more at every start. */
final class LayoutEpochFile
{
    private static final String EPOCH_FILE = "rdmakv.epoch";

    private LayoutEpochFile()
    {
    }

    /** The layout epoch: one more than at the last start of this data directory (kept in a small file). */
    static long next(final Path dataDir)
    {
        final Path file = dataDir.resolve(EPOCH_FILE);
        long previous = 0;
        try
        {
            if (Files.exists(file))
            {
                previous = Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim());
            }
            final long next = previous + 1;
            final Path tmp = dataDir.resolve(EPOCH_FILE + ".tmp");
            Files.writeString(tmp, Long.toString(next), StandardCharsets.US_ASCII);
            Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING,
                java.nio.file.StandardCopyOption.ATOMIC_MOVE);
            return next;
        }
        catch (final IOException | NumberFormatException ex)
        {
            throw new ServerStartException("cannot read or write the epoch file " + file + ": " + ex.getMessage(), ex);
        }
    }
}

package io.rdmakv.server.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/** Small files a store keeps beside RocksDB, replaced whole and durably. */
final class DurableFiles
{
    private DurableFiles()
    {
    }

    /**
     * Replace {@code directory/name} with {@code content}: a temporary file, synced, renamed over it, the directory
     * synced. A crash leaves the old file or the new one, never a mix.
     */
    static void replace(final Path directory, final String name, final byte[] content) throws IOException
    {
        final Path tmp = directory.resolve(name + ".tmp");
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING))
        {
            final ByteBuffer b = ByteBuffer.wrap(content);
            while (b.hasRemaining())
            {
                ch.write(b);
            }
            ch.force(true);
        }
        Files.move(tmp, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        try (FileChannel dir = FileChannel.open(directory, StandardOpenOption.READ))
        {
            dir.force(true);
        }
        catch (final IOException ex)
        {
            // Some file systems cannot sync a directory; the rename is still atomic.
        }
    }
}

package io.rdmakv.server.store;

import com.sun.jna.Library;
import com.sun.jna.Native;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The reserve file of a data directory ({@value #FILE}): space taken from the file system at start, given back the
 * moment the disk is full so that RocksDB can resume and DELETEs and compaction can run ({@link DiskFullGuard}).
 * The blocks are really allocated ({@code posix_fallocate}, or zeros written where it cannot be called): a sparse
 * file would reserve nothing. Any thread; callers serialise {@link #create} and {@link #release}.
 */
final class DiskReserve
{
    /** The reserve's file name in the data directory. */
    static final String FILE = "disk-reserve";
    private static final int CHUNK = 1 << 20;

    private final Path file;
    private final long bytes;

    DiskReserve(final Path directory, final long bytes)
    {
        this.file = directory.resolve(FILE);
        this.bytes = bytes;
    }

    long bytes()
    {
        return bytes;
    }

    Path file()
    {
        return file;
    }

    /** True when the reserve is in place at its full size (or none is configured). */
    boolean held()
    {
        try
        {
            return bytes == 0 || Files.size(file) == bytes;
        }
        catch (final IOException ex)
        {
            return false;
        }
    }

    /**
     * Allocate the reserve (kept when a previous run left it at the right size).
     *
     * @throws IOException when the file system has no room for it (the partial file is removed).
     */
    void create() throws IOException
    {
        if (bytes == 0 || held())
        {
            return;
        }
        try
        {
            Files.deleteIfExists(file); // the wrong size: a partial file, or another reserve size before
            if (!Fallocate.allocate(file, bytes))
            {
                writeZeros();
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            Files.deleteIfExists(file);
            throw ex instanceof IOException io ? io : new IOException(ex.toString(), ex);
        }
    }

    /** Give the space back. @return the bytes released (0 when there was no reserve). */
    long release()
    {
        try
        {
            final long size = Files.exists(file) ? Files.size(file) : 0;
            Files.deleteIfExists(file);
            return size;
        }
        catch (final IOException ex)
        {
            return 0;
        }
    }

    private void writeZeros() throws IOException
    {
        final ByteBuffer zeros = ByteBuffer.allocateDirect(CHUNK);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING))
        {
            for (long at = 0; at < bytes; )
            {
                zeros.clear().limit((int)Math.min(CHUNK, bytes - at));
                at += channel.write(zeros, at);
            }
            channel.force(false);
        }
    }

    /** {@code posix_fallocate} through JNA: blocks allocated without writing them. */
    private static final class Fallocate
    {
        private static final int O_WRONLY = 01;
        private static final int O_CREAT = 0100;
        private static final int O_CLOEXEC = 02000000;
        private static final int EOPNOTSUPP = 95;

        /** Null when libc cannot be bound (then zeros are written). */
        private static final LibC LIBC = bind();

        private static LibC bind()
        {
            try
            {
                return Native.load("c", LibC.class);
            }
            catch (final LinkageError ex)
            {
                return null;
            }
        }

        /** @return false when it cannot be done this way (write zeros instead). */
        static boolean allocate(final Path file, final long bytes) throws IOException
        {
            if (LIBC == null)
            {
                return false;
            }
            final int fd = LIBC.open(file.toString(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
            if (fd < 0)
            {
                return false;
            }
            final int error;
            try
            {
                error = LIBC.posix_fallocate(fd, 0, bytes);
            }
            finally
            {
                LIBC.close(fd);
            }
            if (error == EOPNOTSUPP)
            {
                return false;
            }
            if (error != 0)
            {
                throw new IOException("cannot reserve " + bytes + " bytes in " + file + ": " + LIBC.strerror(error));
            }
            return true;
        }
    }

    /** The libc calls of {@link Fallocate} (LP64: off_t is 64 bits). */
    interface LibC extends Library
    {
        int open(String path, int flags, int mode);

        int posix_fallocate(int fd, long offset, long length);

        int close(int fd);

        String strerror(int errnum);
    }
}

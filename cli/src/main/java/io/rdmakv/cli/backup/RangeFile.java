package io.rdmakv.cli.backup;

import io.rdmakv.server.backup.Backup;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One slot range of a cluster backup: its entries in the order the primary's store holds them (slot, then key),
 * each {@code u16 key length | i32 value length | key | value} (little-endian), nothing else. The checksum is the
 * SHA-256 of those bytes, so the file's digest and the digest of the same entries read back from a cluster are one
 * and the same computation ({@link Digest}).
 */
final class RangeFile
{
    static final int ENTRY_HEADER_LENGTH = 6;

    /** The key count, byte count (keys and values) and SHA-256 of a sequence of entries. */
    record Summary(long keys, long bytes, String sha256)
    {
    }

    private RangeFile()
    {
    }

    /** The SHA-256 of entries as they are encoded in a range file, and their counts. */
    static final class Digest
    {
        private final MessageDigest sha = sha256();
        private final ByteBuffer header = ByteBuffer.allocate(ENTRY_HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        private long keys;
        private long bytes;

        /** Adds one entry; returns its header (valid until the next call). */
        byte[] add(final byte[] key, final byte[] value)
        {
            header.clear();
            header.putShort((short)key.length).putInt(value.length);
            sha.update(header.array());
            sha.update(key);
            sha.update(value);
            keys++;
            bytes += key.length + (long)value.length;
            return header.array();
        }

        Summary summary()
        {
            return new Summary(keys, bytes, HexFormat.of().formatHex(sha.digest()));
        }
    }

    /** Writes entries into a new file and digests them on the way. */
    static final class Writer implements Backup.EntrySink, AutoCloseable
    {
        private final OutputStream out;
        private final Digest digest = new Digest();

        Writer(final Path file) throws IOException
        {
            this.out = new BufferedOutputStream(Files.newOutputStream(file), 1 << 16);
        }

        @Override
        public void accept(final byte[] key, final byte[] value) throws IOException
        {
            out.write(digest.add(key, value));
            out.write(key);
            out.write(value);
        }

        /** Flushes and closes the file; returns what it holds. */
        Summary finish() throws IOException
        {
            out.close();
            return digest.summary();
        }

        @Override
        public void close() throws IOException
        {
            out.close();
        }
    }

    /**
     * Hands every entry of {@code file} to {@code sink} in order; returns the file's summary.
     *
     * @throws IOException when the file cannot be read or is cut short inside an entry.
     */
    static Summary read(final Path file, final Backup.EntrySink sink) throws IOException
    {
        final Digest digest = new Digest();
        try (InputStream raw = new BufferedInputStream(Files.newInputStream(file), 1 << 16);
            DataInputStream in = new DataInputStream(raw))
        {
            final byte[] header = new byte[ENTRY_HEADER_LENGTH];
            while (true)
            {
                final int first = in.read();
                if (first < 0)
                {
                    return digest.summary();
                }
                header[0] = (byte)first;
                try
                {
                    in.readFully(header, 1, ENTRY_HEADER_LENGTH - 1);
                    final ByteBuffer h = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN);
                    final int keyLength = h.getShort(0) & 0xFFFF;
                    final int valueLength = h.getInt(2);
                    if (valueLength < 0)
                    {
                        throw new IOException(file + " is damaged: an entry with a value of " + valueLength + " bytes");
                    }
                    final byte[] key = in.readNBytes(keyLength);
                    final byte[] value = in.readNBytes(valueLength);
                    if (key.length != keyLength || value.length != valueLength)
                    {
                        throw new EOFException();
                    }
                    digest.add(key, value);
                    sink.accept(key, value);
                }
                catch (final EOFException ex)
                {
                    throw new IOException(file + " is cut short after " + digest.keys + " entries", ex);
                }
            }
        }
    }

    private static MessageDigest sha256()
    {
        try
        {
            return MessageDigest.getInstance("SHA-256");
        }
        catch (final NoSuchAlgorithmException ex)
        {
            throw new IllegalStateException("every JDK has SHA-256", ex);
        }
    }
}

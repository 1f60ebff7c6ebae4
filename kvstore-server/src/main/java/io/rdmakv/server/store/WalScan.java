package io.rdmakv.server.store;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Reads RocksDB write-ahead log files the way RocksDB's log reader does, to say where one is damaged and which writes
 * it holds: RocksDB's open reports only "Corruption: checksum mismatch", without the file or the offset.
 *
 * <pre>
 *   file = block*, block = 32 KiB of records and a trailer of fewer than 7 zero bytes
 *    0                   4          6        7 (11 for recyclable types 5-8, 11, 131)
 *   +-------------------+----------+--------+--------------------+------------------+
 *   | masked CRC32C     | length   | type   | [log number, 4 B]  | payload (length) |
 *   +-------------------+----------+--------+--------------------+------------------+
 *   CRC32C over type, log number and payload; mask = ((crc &gt;&gt;&gt; 15) | (crc &lt;&lt; 17)) + 0xa282ead8 (all little-endian)
 *   type: 1 FULL, 2 FIRST, 3 MIDDLE, 4 LAST (+4 recyclable), 9/10/11 and &gt;= 128 metadata, 0 preallocated zeros
 *   a logical record (FULL, or FIRST MIDDLE* LAST) is a WriteBatch: sequence (8 B), count (4 B), operations
 * </pre>
 *
 * Like RocksDB, a record that does not fit in the last, short block or a logical record left open at the end of the
 * file is a torn tail (a write cut short by a crash), not damage; a bad checksum or length elsewhere drops the rest
 * of its block.
 */
public final class WalScan
{
    static final int BLOCK_SIZE = 32 * 1024;
    private static final int HEADER = 7;
    private static final int RECYCLABLE_HEADER = 11;
    private static final int MASK_DELTA = 0xa282ead8;
    private static final int BATCH_HEADER = 12;

    private WalScan()
    {
    }

    /** The WAL files ({@code NNNNNN.log}) of a RocksDB directory, oldest (lowest number) first. */
    public static List<Path> walFiles(final Path directory) throws IOException
    {
        final List<Path> files = new ArrayList<>();
        if (!Files.isDirectory(directory))
        {
            return files;
        }
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(directory, "*.log"))
        {
            for (final Path p : stream)
            {
                if (p.getFileName().toString().matches("\\d+\\.log"))
                {
                    files.add(p);
                }
            }
        }
        files.sort(Comparator.comparingLong(WalScan::number));
        return files;
    }

    /** Scan every WAL file of {@code directory}, oldest first. */
    public static List<WalFileReport> scanAll(final Path directory) throws IOException
    {
        final List<WalFileReport> reports = new ArrayList<>();
        for (final Path file : walFiles(directory))
        {
            reports.add(scan(file));
        }
        return reports;
    }

    /** Scan one WAL file. */
    public static WalFileReport scan(final Path file) throws IOException
    {
        final Scanner s = new Scanner(file);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ))
        {
            final ByteBuffer block = ByteBuffer.allocate(BLOCK_SIZE);
            long blockOffset = 0;
            while (true)
            {
                block.clear();
                while (block.hasRemaining() && channel.read(block) > 0)
                {
                    // fill the block
                }
                final int length = block.position();
                if (length == 0)
                {
                    break;
                }
                s.block(block.array(), length, blockOffset, length < BLOCK_SIZE);
                blockOffset += length;
                if (length < BLOCK_SIZE)
                {
                    break;
                }
            }
            s.endOfFile(blockOffset);
        }
        return s.report(Files.size(file));
    }

    private static long number(final Path wal)
    {
        final String name = wal.getFileName().toString();
        return Long.parseLong(name.substring(0, name.length() - ".log".length()));
    }

    private static int unmask(final int masked)
    {
        final int rot = masked - MASK_DELTA;
        return (rot >>> 17) | (rot << 15);
    }

    private static int u16(final byte[] b, final int at)
    {
        return (b[at] & 0xff) | (b[at + 1] & 0xff) << 8;
    }

    private static int i32(final byte[] b, final int at)
    {
        return u16(b, at) | u16(b, at + 2) << 16;
    }

    private static long i64(final byte[] b, final int at)
    {
        return (i32(b, at) & 0xffffffffL) | ((long)i32(b, at + 4)) << 32;
    }

    /** One pass over one file's blocks. */
    private static final class Scanner
    {
        private final Path file;
        private final CRC32C crc = new CRC32C();
        private final byte[] batchHeader = new byte[BATCH_HEADER];
        private int batchHeaderBytes;
        private boolean inFragment;
        private long fragmentStart = -1;
        private long firstDamageOffset = -1;
        private String firstDamageReason;
        private long damagedBytes;
        private int damagedRegions;
        private long tornTailOffset = -1;
        private long tornTailBytes;
        private long writes;
        private long firstSequence = -1;
        private long lastSequence = -1;
        private long lastSequenceBeforeDamage = -1;

        Scanner(final Path file)
        {
            this.file = file;
        }

        void block(final byte[] b, final int length, final long blockOffset, final boolean lastBlock)
        {
            int pos = 0;
            while (pos < length)
            {
                final int remaining = length - pos;
                if (remaining < HEADER)
                {
                    if (lastBlock)
                    {
                        torn(blockOffset + pos, remaining);
                    }
                    return; // a full block's trailer
                }
                final int recordLength = u16(b, pos + 4);
                final int type = b[pos + 6] & 0xff;
                if (type == 0 && recordLength == 0)
                {
                    return; // preallocated zeros: RocksDB skips the rest of the block
                }
                final int header = (type >= 5 && type <= 8) || type == 11 || type == 131 ? RECYCLABLE_HEADER : HEADER;
                if (pos + header + recordLength > length)
                {
                    if (lastBlock)
                    {
                        torn(blockOffset + pos, remaining);
                    }
                    else
                    {
                        damage(blockOffset + pos, remaining, "bad record length");
                        dropFragment(blockOffset + pos);
                    }
                    return;
                }
                crc.reset();
                crc.update(b, pos + 6, header - 6 + recordLength);
                if ((int)crc.getValue() != unmask(i32(b, pos)))
                {
                    damage(blockOffset + pos, remaining, "checksum mismatch");
                    dropFragment(blockOffset + pos);
                    return;
                }
                fragment(type, b, pos + header, recordLength, blockOffset + pos);
                pos += header + recordLength;
            }
        }

        private void fragment(final int type, final byte[] b, final int at, final int length, final long offset)
        {
            final int base = type >= 5 && type <= 8 ? type - 4 : type;
            switch (base)
            {
                case 1 ->
                {
                    abandonFragment(offset);
                    batchHeaderBytes = 0;
                    collect(b, at, length);
                    completeBatch();
                }
                case 2 ->
                {
                    abandonFragment(offset);
                    inFragment = true;
                    fragmentStart = offset;
                    batchHeaderBytes = 0;
                    collect(b, at, length);
                }
                case 3, 4 ->
                {
                    if (!inFragment)
                    {
                        damage(offset, length, "fragment without a start");
                        return;
                    }
                    collect(b, at, length);
                    if (base == 4)
                    {
                        inFragment = false;
                        completeBatch();
                    }
                }
                default ->
                {
                    if (type < 9 || (type > 11 && (type & 0x80) == 0))
                    {
                        damage(offset, length, "unknown record type " + type);
                    }
                }
            }
        }

        private void abandonFragment(final long offset)
        {
            if (inFragment)
            {
                damage(fragmentStart, offset - fragmentStart, "partial record without end");
                inFragment = false;
            }
        }

        /** A damaged record inside a logical record: the fragments before it are lost with it. */
        private void dropFragment(final long offset)
        {
            if (inFragment)
            {
                damagedBytes += offset - fragmentStart;
                inFragment = false;
            }
        }

        private void collect(final byte[] b, final int at, final int length)
        {
            final int n = Math.min(BATCH_HEADER - batchHeaderBytes, length);
            System.arraycopy(b, at, batchHeader, batchHeaderBytes, n);
            batchHeaderBytes += n;
        }

        private void completeBatch()
        {
            if (batchHeaderBytes < BATCH_HEADER)
            {
                return;
            }
            final long sequence = i64(batchHeader, 0);
            final long count = i32(batchHeader, 8) & 0xffffffffL;
            if (firstSequence < 0)
            {
                firstSequence = sequence;
            }
            final long last = sequence + Math.max(count, 1) - 1;
            lastSequence = Math.max(lastSequence, last);
            if (firstDamageOffset < 0)
            {
                lastSequenceBeforeDamage = lastSequence;
            }
            writes += count;
        }

        void endOfFile(final long size)
        {
            if (inFragment)
            {
                // The torn record began in an earlier fragment: the whole logical record is the tail.
                tornTailOffset = fragmentStart;
                tornTailBytes = size - fragmentStart;
                inFragment = false;
            }
        }

        private void torn(final long offset, final long bytes)
        {
            if (tornTailOffset < 0)
            {
                tornTailOffset = offset;
            }
            tornTailBytes += bytes;
        }

        private void damage(final long offset, final long bytes, final String reason)
        {
            if (firstDamageOffset < 0)
            {
                firstDamageOffset = offset;
                firstDamageReason = reason;
            }
            damagedBytes += bytes;
            damagedRegions++;
        }

        WalFileReport report(final long size)
        {
            return new WalFileReport(file, size, firstDamageOffset, firstDamageReason, damagedBytes, damagedRegions,
                tornTailOffset, tornTailBytes, writes, firstSequence, lastSequence,
                firstDamageOffset < 0 ? lastSequence : lastSequenceBeforeDamage);
        }
    }
}

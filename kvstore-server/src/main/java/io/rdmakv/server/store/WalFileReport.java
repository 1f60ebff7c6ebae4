package io.rdmakv.server.store;

import java.nio.file.Path;

/**
 * What {@link WalScan} found in one WAL file.
 *
 * @param file                     the file.
 * @param size                     its size in bytes.
 * @param firstDamageOffset        offset of the first damaged record, or -1 when none is damaged.
 * @param firstDamageReason        what is wrong there ("checksum mismatch", "bad record length", ...), or null.
 * @param damagedBytes             bytes RocksDB cannot read outside the torn tail (each damage drops the rest of its
 *                                 32 KiB block).
 * @param damagedRegions           how many damaged places.
 * @param tornTailOffset           offset of a last record cut short (a write interrupted by a crash), or -1.
 * @param tornTailBytes            bytes of that partial record.
 * @param writes                   writes (operations) in the intact records.
 * @param firstSequence            sequence number of the first intact record, or -1 when there is none.
 * @param lastSequence             last sequence number of any intact record, or -1.
 * @param lastSequenceBeforeDamage last sequence number before the first damage (everything when undamaged), or -1.
 */
public record WalFileReport(
    Path file, long size, long firstDamageOffset, String firstDamageReason, long damagedBytes, int damagedRegions,
    long tornTailOffset, long tornTailBytes, long writes, long firstSequence, long lastSequence,
    long lastSequenceBeforeDamage)
{
    /** True when a record other than a torn last one is damaged. */
    public boolean damaged()
    {
        return firstDamageOffset >= 0;
    }

    /** True when the file ends in a partial record. */
    public boolean tornTail()
    {
        return tornTailOffset >= 0;
    }
}

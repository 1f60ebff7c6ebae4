package io.rdmakv.transport.verbs.ffi;

import org.agrona.concurrent.UnsafeBuffer;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * A fixed array of {@code struct ibv_send_wr}, each with its own single {@code struct ibv_sge}, serialised into native
 * memory once (DiSNI's stateful verb calls): posting changes a few fields in place and passes a pointer, never
 * allocating. Slot {@code i}'s SGE list pointer is written at construction and never changes.
 *
 * <pre>
 *  slot i (128 bytes, struct ibv_send_wr)                          SGE area after all WRs (16 bytes each)
 *  +--------+--------+---------+-------+--------+-------+-----+    +---------+--------+------+
 *  | wr_id  |  next  | sg_list |num_sge| opcode | flags | imm |    |  addr   | length | lkey |
 *  |   0    |   8    |   16    |  24   |   28   |  32   | 36  |    |    0    |   8    |  12  |
 *  +--------+--------+---------+-------+--------+-------+-----+    +---------+--------+------+
 *  | wr.rdma.remote_addr (40) | wr.rdma.rkey (48) |  unused   |
 *  +--------------------------+-------------------+-----------+
 *  | bind_mw: mw (80) | rkey (88) | mr (96) | addr (104) | length (112) | mw_access_flags (120) |
 *  +------------------------------------------------------------------------------------------+
 * </pre>
 *
 * <p>A memory-window bind ({@link #prepareBindWindow}) and a local invalidation ({@link #prepareLocalInvalidate})
 * carry no scatter/gather entry ({@code num_sge} 0); a send or read sets it back to 1. Invalidation's rkey shares
 * {@code imm_data}'s place, which every send and read overwrites.
 */
public final class SendWorkRequests
{
    private final NativeBlock block;
    private final UnsafeBuffer buffer;
    private final int count;
    private final int sgeBase;

    public SendWorkRequests(final int count)
    {
        if (count <= 0)
        {
            throw new IllegalArgumentException("work request count must be positive: " + count);
        }
        this.count = count;
        this.sgeBase = count * SIZEOF_SEND_WR;
        this.block = new NativeBlock(sgeBase + count * SIZEOF_SGE);
        this.buffer = block.buffer();
        for (int i = 0; i < count; i++)
        {
            final int wr = i * SIZEOF_SEND_WR;
            buffer.putLong(wr + SEND_WR_SG_LIST, block.address() + sgeBase + (long)i * SIZEOF_SGE);
            buffer.putInt(wr + SEND_WR_NUM_SGE, 1);
        }
    }

    public int count()
    {
        return count;
    }

    /** Native address of slot {@code index}'s {@code ibv_send_wr}. */
    public long address(final int index)
    {
        return block.address() + (long)index * SIZEOF_SEND_WR;
    }

    /**
     * A send (with immediate data) of {@code length} bytes at {@code localAddress}.
     *
     * @param flags {@link VerbsLayout#SEND_SIGNALED} and/or {@link VerbsLayout#SEND_INLINE}.
     */
    public void prepareSend(
        final int index, final long wrId, final long localAddress, final int length, final int lkey,
        final int flags, final int immData)
    {
        final int wr = index * SIZEOF_SEND_WR;
        buffer.putLong(wr + SEND_WR_WR_ID, wrId);
        buffer.putLong(wr + SEND_WR_NEXT, 0L);
        buffer.putInt(wr + SEND_WR_NUM_SGE, 1);
        buffer.putInt(wr + SEND_WR_OPCODE, WR_SEND_WITH_IMM);
        buffer.putInt(wr + SEND_WR_SEND_FLAGS, flags);
        buffer.putInt(wr + SEND_WR_IMM_DATA, immData);
        buffer.putLong(wr + SEND_WR_RDMA_REMOTE_ADDR, 0L);
        buffer.putInt(wr + SEND_WR_RDMA_RKEY, 0);
        putSge(index, localAddress, length, lkey);
    }

    /** An RDMA Read of {@code length} bytes at {@code remoteAddress} (region {@code rkey}) into {@code localAddress}. */
    public void prepareRead(
        final int index, final long wrId, final long localAddress, final int length, final int lkey,
        final long remoteAddress, final int rkey, final int flags)
    {
        final int wr = index * SIZEOF_SEND_WR;
        buffer.putLong(wr + SEND_WR_WR_ID, wrId);
        buffer.putLong(wr + SEND_WR_NEXT, 0L);
        buffer.putInt(wr + SEND_WR_NUM_SGE, 1);
        buffer.putInt(wr + SEND_WR_OPCODE, WR_RDMA_READ);
        buffer.putInt(wr + SEND_WR_SEND_FLAGS, flags);
        buffer.putInt(wr + SEND_WR_IMM_DATA, 0);
        buffer.putLong(wr + SEND_WR_RDMA_REMOTE_ADDR, remoteAddress);
        buffer.putInt(wr + SEND_WR_RDMA_RKEY, rkey);
        putSge(index, localAddress, length, lkey);
    }

    /**
     * Bind type 2 memory window {@code mw} over {@code length} bytes at {@code address} of region {@code mr}, under
     * the new key {@code rkey} (verbs.h's {@code ibv_inc_rkey} of the window's current one: only the low 8 bits may
     * change), with {@code accessFlags} ({@link VerbsLayout#ACCESS_REMOTE_READ}). The window is then valid for reads
     * arriving on the QP it was posted to only.
     */
    public void prepareBindWindow(
        final int index, final long wrId, final long mw, final int rkey, final long mr, final long address,
        final long length, final int accessFlags, final int flags)
    {
        final int wr = index * SIZEOF_SEND_WR;
        buffer.putLong(wr + SEND_WR_WR_ID, wrId);
        buffer.putLong(wr + SEND_WR_NEXT, 0L);
        buffer.putInt(wr + SEND_WR_NUM_SGE, 0);
        buffer.putInt(wr + SEND_WR_OPCODE, WR_BIND_MW);
        buffer.putInt(wr + SEND_WR_SEND_FLAGS, flags);
        buffer.putInt(wr + SEND_WR_IMM_DATA, 0);
        buffer.putLong(wr + SEND_WR_BIND_MW_MW, mw);
        buffer.putInt(wr + SEND_WR_BIND_MW_RKEY, rkey);
        buffer.putLong(wr + SEND_WR_BIND_MW_MR, mr);
        buffer.putLong(wr + SEND_WR_BIND_MW_ADDR, address);
        buffer.putLong(wr + SEND_WR_BIND_MW_LENGTH, length);
        buffer.putInt(wr + SEND_WR_BIND_MW_ACCESS, accessFlags);
        putSge(index, 0L, 0, 0);
    }

    /** Invalidate the window (or region) known by {@code rkey}: peers' accesses with it fail from then on. */
    public void prepareLocalInvalidate(final int index, final long wrId, final int rkey, final int flags)
    {
        final int wr = index * SIZEOF_SEND_WR;
        buffer.putLong(wr + SEND_WR_WR_ID, wrId);
        buffer.putLong(wr + SEND_WR_NEXT, 0L);
        buffer.putInt(wr + SEND_WR_NUM_SGE, 0);
        buffer.putInt(wr + SEND_WR_OPCODE, WR_LOCAL_INV);
        buffer.putInt(wr + SEND_WR_SEND_FLAGS, flags);
        buffer.putInt(wr + SEND_WR_INVALIDATE_RKEY, rkey);
        putSge(index, 0L, 0, 0);
    }

    /**
     * verbs.h's {@code ibv_inc_rkey}: the key a window's next bind should carry (the low 8 bits, the consumer's
     * part, incremented; the index above them kept).
     */
    public static int incrementRkey(final int rkey)
    {
        return (rkey & ~0xFF) | ((rkey + 1) & 0xFF);
    }

    /** Chain slot {@code index} to slot {@code nextIndex} (one doorbell for the list), or end the list with -1. */
    public void link(final int index, final int nextIndex)
    {
        buffer.putLong(index * SIZEOF_SEND_WR + SEND_WR_NEXT, nextIndex < 0 ? 0L : address(nextIndex));
    }

    /** The raw view, for tests and diagnostics. */
    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    /** Offset of slot {@code index}'s SGE within {@link #buffer()}. */
    public int sgeOffset(final int index)
    {
        return sgeBase + index * SIZEOF_SGE;
    }

    private void putSge(final int index, final long localAddress, final int length, final int lkey)
    {
        final int sge = sgeOffset(index);
        buffer.putLong(sge + SGE_ADDR, localAddress);
        buffer.putInt(sge + SGE_LENGTH, length);
        buffer.putInt(sge + SGE_LKEY, lkey);
    }
}

package io.rdmakv.transport.verbs.ffi;

import org.agrona.concurrent.UnsafeBuffer;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * A fixed array of {@code struct ibv_recv_wr}, one per receive buffer, each with one SGE that names its buffer. All of
 * it is written once; re-posting buffer {@code i} passes the address of slot {@code i} and nothing else changes.
 *
 * <pre>
 *  slot i (32 bytes, struct ibv_recv_wr)       SGE area after all WRs (16 bytes each)
 *  +--------+--------+---------+---------+     +---------+--------+------+
 *  | wr_id  |  next  | sg_list | num_sge |     |  addr   | length | lkey |
 *  |   0    |   8    |   16    |   24    |     |    0    |   8    |  12  |
 *  +--------+--------+---------+---------+     +---------+--------+------+
 * </pre>
 */
public final class RecvWorkRequests
{
    /**
     * Set in every receive {@code wr_id}: flushed completions carry no valid opcode, so the id alone must tell a receive
     * from a send-queue completion.
     */
    public static final long RECV_WR_ID_FLAG = 1L << 62;

    private final NativeBlock block;
    private final UnsafeBuffer buffer;
    private final int count;
    private final int sgeBase;

    /**
     * @param bufferBase  address of buffer 0; buffer {@code i} starts at {@code bufferBase + i * bufferBytes}.
     * @param bufferBytes size of each receive buffer.
     * @param lkey        local key of the region that holds the buffers.
     */
    public RecvWorkRequests(final int count, final long bufferBase, final int bufferBytes, final int lkey)
    {
        if (count <= 0 || bufferBytes <= 0)
        {
            throw new IllegalArgumentException("count and buffer size must be positive: " + count + ", " + bufferBytes);
        }
        this.count = count;
        this.sgeBase = count * SIZEOF_RECV_WR;
        this.block = new NativeBlock(sgeBase + count * SIZEOF_SGE);
        this.buffer = block.buffer();
        for (int i = 0; i < count; i++)
        {
            final int wr = i * SIZEOF_RECV_WR;
            final int sge = sgeBase + i * SIZEOF_SGE;
            buffer.putLong(wr + RECV_WR_WR_ID, RECV_WR_ID_FLAG | i);
            buffer.putLong(wr + RECV_WR_NEXT, 0L);
            buffer.putLong(wr + RECV_WR_SG_LIST, block.address() + sge);
            buffer.putInt(wr + RECV_WR_NUM_SGE, 1);
            buffer.putLong(sge + SGE_ADDR, bufferBase + (long)i * bufferBytes);
            buffer.putInt(sge + SGE_LENGTH, bufferBytes);
            buffer.putInt(sge + SGE_LKEY, lkey);
        }
    }

    public int count()
    {
        return count;
    }

    public long address(final int index)
    {
        return block.address() + (long)index * SIZEOF_RECV_WR;
    }

    /** Chain slot {@code index} to {@code nextIndex}, or end the list with -1 (used to post all buffers at once). */
    public void link(final int index, final int nextIndex)
    {
        buffer.putLong(index * SIZEOF_RECV_WR + RECV_WR_NEXT, nextIndex < 0 ? 0L : address(nextIndex));
    }

    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    public int sgeOffset(final int index)
    {
        return sgeBase + index * SIZEOF_SGE;
    }
}

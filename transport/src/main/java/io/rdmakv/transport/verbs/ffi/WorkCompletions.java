package io.rdmakv.transport.verbs.ffi;

import org.agrona.concurrent.UnsafeBuffer;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * An array of {@code struct ibv_wc} that {@code ibv_poll_cq} fills; read in place after each poll.
 *
 * <pre>
 *  entry i (48 bytes, struct ibv_wc)
 *  +--------+--------+--------+------------+----------+----------+--------+--------+----------+-----+
 *  | wr_id  | status | opcode | vendor_err | byte_len | imm_data | qp_num | src_qp | wc_flags | ... |
 *  |   0    |   8    |   12   |     16     |    20    |    24    |   28   |   32   |    36    |     |
 *  +--------+--------+--------+------------+----------+----------+--------+--------+----------+-----+
 * </pre>
 */
public final class WorkCompletions
{
    private final NativeBlock block;
    private final UnsafeBuffer buffer;
    private final int capacity;

    public WorkCompletions(final int capacity)
    {
        if (capacity <= 0)
        {
            throw new IllegalArgumentException("completion batch must be positive: " + capacity);
        }
        this.capacity = capacity;
        this.block = new NativeBlock(capacity * SIZEOF_WC);
        this.buffer = block.buffer();
    }

    public int capacity()
    {
        return capacity;
    }

    public long address()
    {
        return block.address();
    }

    public UnsafeBuffer buffer()
    {
        return buffer;
    }

    public long wrId(final int i)
    {
        return buffer.getLong(i * SIZEOF_WC + WC_WR_ID);
    }

    public int status(final int i)
    {
        return buffer.getInt(i * SIZEOF_WC + WC_STATUS);
    }

    public int opcode(final int i)
    {
        return buffer.getInt(i * SIZEOF_WC + WC_OPCODE);
    }

    public int vendorErr(final int i)
    {
        return buffer.getInt(i * SIZEOF_WC + WC_VENDOR_ERR);
    }

    public int byteLen(final int i)
    {
        return buffer.getInt(i * SIZEOF_WC + WC_BYTE_LEN);
    }

    public int immData(final int i)
    {
        return buffer.getInt(i * SIZEOF_WC + WC_IMM_DATA);
    }

    public int qpNum(final int i)
    {
        return buffer.getInt(i * SIZEOF_WC + WC_QP_NUM);
    }

    public int wcFlags(final int i)
    {
        return buffer.getInt(i * SIZEOF_WC + WC_WC_FLAGS);
    }

    /** True for receive completions (IBV_WC_RECV and the receive opcodes above it). */
    public boolean isReceive(final int i)
    {
        return (opcode(i) & WC_RECV) != 0;
    }
}

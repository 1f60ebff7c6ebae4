package io.rdmakv.transport.verbs.ffi;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The native images of work requests and completions, byte for byte at the C offsets. */
class WorkRequestEncodingTest
{
    @Test
    void shouldEncodeSendWithImmediateAtTheCOffsets()
    {
        final SendWorkRequests wrs = new SendWorkRequests(4);
        wrs.prepareSend(2, 77L, 0x1000_2000L, 300, 0xABCD, SEND_SIGNALED | SEND_INLINE, 0x0001_0005);
        final UnsafeBuffer b = wrs.buffer();
        final int wr = 2 * SIZEOF_SEND_WR;
        assertEquals(77L, b.getLong(wr + SEND_WR_WR_ID));
        assertEquals(0L, b.getLong(wr + SEND_WR_NEXT));
        assertEquals(wrs.buffer().addressOffset() + wrs.sgeOffset(2), b.getLong(wr + SEND_WR_SG_LIST));
        assertEquals(1, b.getInt(wr + SEND_WR_NUM_SGE));
        assertEquals(WR_SEND_WITH_IMM, b.getInt(wr + SEND_WR_OPCODE));
        assertEquals(SEND_SIGNALED | SEND_INLINE, b.getInt(wr + SEND_WR_SEND_FLAGS));
        assertEquals(0x0001_0005, b.getInt(wr + SEND_WR_IMM_DATA));
        final int sge = wrs.sgeOffset(2);
        assertEquals(0x1000_2000L, b.getLong(sge + SGE_ADDR));
        assertEquals(300, b.getInt(sge + SGE_LENGTH));
        assertEquals(0xABCD, b.getInt(sge + SGE_LKEY));
    }

    @Test
    void shouldEncodeRdmaReadWithRemoteAddressAndRkey()
    {
        final SendWorkRequests wrs = new SendWorkRequests(2);
        wrs.prepareSend(0, 1, 1, 1, 1, 0, 99);
        wrs.prepareRead(0, 5L, 0x7000L, 4096, 0x11, 0x7F00_0000_1234L, 0x2233, SEND_SIGNALED);
        final UnsafeBuffer b = wrs.buffer();
        assertEquals(5L, b.getLong(SEND_WR_WR_ID));
        assertEquals(WR_RDMA_READ, b.getInt(SEND_WR_OPCODE));
        assertEquals(SEND_SIGNALED, b.getInt(SEND_WR_SEND_FLAGS));
        assertEquals(0, b.getInt(SEND_WR_IMM_DATA), "a read must not keep the previous send's immediate");
        assertEquals(0x7F00_0000_1234L, b.getLong(SEND_WR_RDMA_REMOTE_ADDR));
        assertEquals(0x2233, b.getInt(SEND_WR_RDMA_RKEY));
        assertEquals(0x7000L, b.getLong(wrs.sgeOffset(0) + SGE_ADDR));
        assertEquals(4096, b.getInt(wrs.sgeOffset(0) + SGE_LENGTH));
    }

    @Test
    void shouldEncodeAMemoryWindowBindAndAnInvalidationAtTheCOffsets()
    {
        final SendWorkRequests wrs = new SendWorkRequests(2);
        wrs.prepareBindWindow(1, 9L, 0x5000L, 0x1234_5601, 0x6000L, 0x7F00_0000_0000L, 1L << 32, ACCESS_REMOTE_READ,
            SEND_SIGNALED);
        final UnsafeBuffer b = wrs.buffer();
        final int wr = SIZEOF_SEND_WR;
        assertEquals(9L, b.getLong(wr + SEND_WR_WR_ID));
        assertEquals(0, b.getInt(wr + SEND_WR_NUM_SGE), "a bind carries no scatter/gather entry");
        assertEquals(WR_BIND_MW, b.getInt(wr + SEND_WR_OPCODE));
        assertEquals(SEND_SIGNALED, b.getInt(wr + SEND_WR_SEND_FLAGS));
        assertEquals(0x5000L, b.getLong(wr + SEND_WR_BIND_MW_MW));
        assertEquals(0x1234_5601, b.getInt(wr + SEND_WR_BIND_MW_RKEY));
        assertEquals(0x6000L, b.getLong(wr + SEND_WR_BIND_MW_MR));
        assertEquals(0x7F00_0000_0000L, b.getLong(wr + SEND_WR_BIND_MW_ADDR));
        assertEquals(1L << 32, b.getLong(wr + SEND_WR_BIND_MW_LENGTH));
        assertEquals(ACCESS_REMOTE_READ, b.getInt(wr + SEND_WR_BIND_MW_ACCESS));

        wrs.prepareLocalInvalidate(1, 10L, 0x1234_5601, SEND_SIGNALED);
        assertEquals(WR_LOCAL_INV, b.getInt(wr + SEND_WR_OPCODE));
        assertEquals(0x1234_5601, b.getInt(wr + SEND_WR_INVALIDATE_RKEY));

        wrs.prepareRead(1, 11L, 0x7000L, 64, 0x11, 0x8000L, 0x2233, SEND_SIGNALED);
        assertEquals(1, b.getInt(wr + SEND_WR_NUM_SGE), "a read after a window operation has its entry back");
        assertEquals(0, b.getInt(wr + SEND_WR_IMM_DATA), "nor does it keep the invalidated key");
    }

    @Test
    void shouldIncrementOnlyTheConsumerByteOfAnRkeyAsIbvIncRkey()
    {
        assertEquals(0x1234_5601, SendWorkRequests.incrementRkey(0x1234_5600));
        assertEquals(0x1234_5600, SendWorkRequests.incrementRkey(0x1234_56FF), "wraps within the low byte");
        assertEquals(0xFFFF_FF00, SendWorkRequests.incrementRkey(0xFFFF_FFFF));
    }

    @Test
    void shouldLinkWorkRequestsIntoOneList()
    {
        final SendWorkRequests wrs = new SendWorkRequests(3);
        wrs.link(2, 0);
        wrs.link(0, 1);
        wrs.link(1, -1);
        final UnsafeBuffer b = wrs.buffer();
        assertEquals(wrs.address(0), b.getLong(2 * SIZEOF_SEND_WR + SEND_WR_NEXT));
        assertEquals(wrs.address(1), b.getLong(SEND_WR_NEXT));
        assertEquals(0L, b.getLong(SIZEOF_SEND_WR + SEND_WR_NEXT));
        assertEquals(wrs.address(1) - wrs.address(0), SIZEOF_SEND_WR);
    }

    @Test
    void shouldPointEachReceiveAtItsOwnBuffer()
    {
        final RecvWorkRequests wrs = new RecvWorkRequests(3, 0x10_0000L, 4096, 0x99);
        final UnsafeBuffer b = wrs.buffer();
        for (int i = 0; i < 3; i++)
        {
            final int wr = i * SIZEOF_RECV_WR;
            assertEquals(RecvWorkRequests.RECV_WR_ID_FLAG | i, b.getLong(wr + RECV_WR_WR_ID));
            assertEquals(1, b.getInt(wr + RECV_WR_NUM_SGE));
            assertEquals(b.addressOffset() + wrs.sgeOffset(i), b.getLong(wr + RECV_WR_SG_LIST));
            assertEquals(0x10_0000L + i * 4096L, b.getLong(wrs.sgeOffset(i) + SGE_ADDR));
            assertEquals(4096, b.getInt(wrs.sgeOffset(i) + SGE_LENGTH));
            assertEquals(0x99, b.getInt(wrs.sgeOffset(i) + SGE_LKEY));
        }
    }

    @Test
    void shouldDecodeCompletionsWrittenAtTheCOffsets()
    {
        final WorkCompletions wcs = new WorkCompletions(4);
        final UnsafeBuffer b = wcs.buffer();
        final int wc = 3 * SIZEOF_WC;
        b.putLong(wc + WC_WR_ID, RecvWorkRequests.RECV_WR_ID_FLAG | 7);
        b.putInt(wc + WC_STATUS, WC_RNR_RETRY_EXC_ERR);
        b.putInt(wc + WC_OPCODE, WC_RECV);
        b.putInt(wc + WC_VENDOR_ERR, 0x42);
        b.putInt(wc + WC_BYTE_LEN, 1234);
        b.putInt(wc + WC_IMM_DATA, 0x0002_0009);
        b.putInt(wc + WC_QP_NUM, 0x11);
        b.putInt(wc + WC_WC_FLAGS, WC_WITH_IMM);
        assertEquals(RecvWorkRequests.RECV_WR_ID_FLAG | 7, wcs.wrId(3));
        assertEquals(WC_RNR_RETRY_EXC_ERR, wcs.status(3));
        assertTrue(wcs.isReceive(3));
        assertEquals(0x42, wcs.vendorErr(3));
        assertEquals(1234, wcs.byteLen(3));
        assertEquals(0x0002_0009, wcs.immData(3));
        assertEquals(0x11, wcs.qpNum(3));
        assertEquals(WC_WITH_IMM, wcs.wcFlags(3));
        b.putInt(SIZEOF_WC * 2 + WC_OPCODE, WC_RDMA_READ);
        assertFalse(wcs.isReceive(2));
    }

    @Test
    void shouldRefuseEmptyArrays()
    {
        assertThrows(IllegalArgumentException.class, () -> new SendWorkRequests(0));
        assertThrows(IllegalArgumentException.class, () -> new RecvWorkRequests(0, 1, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new WorkCompletions(0));
    }

    @Test
    void shouldAllocatePageAlignedNativeBlocks()
    {
        final NativeBlock block = new NativeBlock(100);
        assertEquals(0, block.address() % NativeBlock.PAGE_SIZE);
        assertEquals(NativeBlock.PAGE_SIZE, block.capacity());
    }
}

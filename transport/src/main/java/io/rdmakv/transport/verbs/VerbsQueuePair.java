package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.NativeBlock;
import org.agrona.concurrent.UnsafeBuffer;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * One RC queue pair and its state machine RESET -> INIT -> RTR -> RTS (-> ERR), driven by hand (no rdma_cm): the
 * peer's QP number, PSN, LID/GID and MTU come over the TCP control channel. Set-up only; not on the data path.
 */
final class VerbsQueuePair
{
    /** The peer's half of the handshake. */
    record Remote(int lid, byte[] gid, int qpNumber, int psn, int activeMtu, int recvDepth, int fragmentBytes)
    {
    }

    final long qp;
    final int qpNumber;
    final int sendDepth;
    final int recvDepth;
    final int maxInline;
    final int psn;
    private final VerbsDevice device;
    private final VerbsConfig config;
    private final NativeBlock attr = new NativeBlock(NativeBlock.PAGE_SIZE);
    private boolean destroyed;

    VerbsQueuePair(final VerbsDevice device, final VerbsConfig config, final long cq, final int sendDepth,
        final int recvDepth, final int psn)
    {
        this.device = device;
        this.config = config;
        this.psn = psn & 0xFF_FFFF;
        final UnsafeBuffer a = attr.buffer();
        a.setMemory(0, SIZEOF_QP_INIT_ATTR, (byte)0);
        a.putLong(QP_INIT_ATTR_SEND_CQ, cq);
        a.putLong(QP_INIT_ATTR_RECV_CQ, cq);
        a.putInt(QP_INIT_ATTR_MAX_SEND_WR, sendDepth);
        a.putInt(QP_INIT_ATTR_MAX_RECV_WR, recvDepth);
        a.putInt(QP_INIT_ATTR_MAX_SEND_SGE, 1);
        a.putInt(QP_INIT_ATTR_MAX_RECV_SGE, 1);
        a.putInt(QP_INIT_ATTR_MAX_INLINE_DATA, config.maxInline);
        a.putInt(QP_INIT_ATTR_QP_TYPE, QPT_RC);
        a.putInt(QP_INIT_ATTR_SQ_SIG_ALL, 0);
        qp = LibIbverbs.ibv_create_qp(device.pd, attr.address());
        if (qp == 0)
        {
            throw new TransportException("ibv_create_qp(send " + sendDepth + ", recv " + recvDepth + ", inline " +
                config.maxInline + ") failed: " + LibIbverbs.describeErrno(LibIbverbs.errno()));
        }
        // The provider writes back what it really granted (at least what was asked).
        this.sendDepth = sendDepth;
        this.recvDepth = recvDepth;
        this.maxInline = Math.min(a.getInt(QP_INIT_ATTR_MAX_INLINE_DATA), config.maxInline);
        this.qpNumber = new com.sun.jna.Pointer(qp).getInt(QP_OFFSET_QP_NUM);
    }

    void toInit()
    {
        final UnsafeBuffer a = clear();
        a.putInt(QP_ATTR_QP_STATE, QPS_INIT);
        a.putShort(QP_ATTR_PKEY_INDEX, (short)0);
        a.putByte(QP_ATTR_PORT_NUM, (byte)device.port);
        // Peers may read (RDMA Read targets this QP) but never write our memory.
        a.putInt(QP_ATTR_QP_ACCESS_FLAGS, ACCESS_REMOTE_READ);
        modify(QP_STATE | QP_PKEY_INDEX | QP_PORT | QP_ACCESS_FLAGS, "INIT");
    }

    /** RTR: path MTU is the smaller of both ports' active MTU. */
    void toRtr(final Remote remote)
    {
        final UnsafeBuffer a = clear();
        a.putInt(QP_ATTR_QP_STATE, QPS_RTR);
        a.putInt(QP_ATTR_PATH_MTU, Math.min(device.activeMtu, remote.activeMtu()));
        a.putInt(QP_ATTR_DEST_QP_NUM, remote.qpNumber());
        a.putInt(QP_ATTR_RQ_PSN, remote.psn());
        a.putByte(QP_ATTR_MAX_DEST_RD_ATOMIC, (byte)device.maxRdAtomic);
        a.putByte(QP_ATTR_MIN_RNR_TIMER, (byte)config.minRnrTimer);
        a.putShort(QP_ATTR_AH_DLID, (short)remote.lid());
        a.putByte(QP_ATTR_AH_SL, (byte)0);
        a.putByte(QP_ATTR_AH_SRC_PATH_BITS, (byte)0);
        a.putByte(QP_ATTR_AH_PORT_NUM, (byte)device.port);
        if (device.isEthernet() || remote.lid() == 0)
        {
            // RoCE has no LIDs: address the peer by GID (global routing header).
            a.putByte(QP_ATTR_AH_IS_GLOBAL, (byte)1);
            a.putBytes(QP_ATTR_GRH_DGID, remote.gid(), 0, 16);
            a.putByte(QP_ATTR_GRH_SGID_INDEX, (byte)device.gidIndex);
            a.putByte(QP_ATTR_GRH_HOP_LIMIT, (byte)64);
            a.putInt(QP_ATTR_GRH_FLOW_LABEL, 0);
            a.putByte(QP_ATTR_GRH_TRAFFIC_CLASS, (byte)0);
        }
        modify(QP_STATE | QP_AV | QP_PATH_MTU | QP_DEST_QPN | QP_RQ_PSN | QP_MAX_DEST_RD_ATOMIC |
            QP_MIN_RNR_TIMER, "RTR");
    }

    void toRts()
    {
        final UnsafeBuffer a = clear();
        a.putInt(QP_ATTR_QP_STATE, QPS_RTS);
        a.putByte(QP_ATTR_TIMEOUT, (byte)config.timeout);
        a.putByte(QP_ATTR_RETRY_CNT, (byte)config.retryCount);
        a.putByte(QP_ATTR_RNR_RETRY, (byte)config.rnrRetry);
        a.putInt(QP_ATTR_SQ_PSN, psn);
        a.putByte(QP_ATTR_MAX_RD_ATOMIC, (byte)device.maxRdAtomic);
        modify(QP_STATE | QP_TIMEOUT | QP_RETRY_CNT | QP_RNR_RETRY | QP_SQ_PSN | QP_MAX_QP_RD_ATOMIC, "RTS");
    }

    /** Move to ERR so every posted work request is flushed; errors are ignored (we are tearing down anyway). */
    synchronized void toError()
    {
        if (destroyed)
        {
            return;
        }
        final UnsafeBuffer a = clear();
        a.putInt(QP_ATTR_QP_STATE, QPS_ERR);
        LibIbverbs.ibv_modify_qp(qp, attr.address(), QP_STATE);
    }

    synchronized void destroy()
    {
        if (destroyed)
        {
            return;
        }
        destroyed = true;
        LibIbverbs.ibv_destroy_qp(qp);
    }

    private UnsafeBuffer clear()
    {
        final UnsafeBuffer a = attr.buffer();
        a.setMemory(0, SIZEOF_QP_ATTR, (byte)0);
        return a;
    }

    private synchronized void modify(final int mask, final String state)
    {
        if (destroyed)
        {
            throw new TransportException("QP " + qpNumber + " already destroyed");
        }
        final int rc = LibIbverbs.ibv_modify_qp(qp, attr.address(), mask);
        if (rc != 0)
        {
            final int errno = rc > 0 ? rc : LibIbverbs.errno();
            throw new TransportException("ibv_modify_qp(QP " + qpNumber + " -> " + state + ") failed: " +
                LibIbverbs.describeErrno(errno));
        }
    }
}

/*
 * Prints the size and field offsets of every libibverbs struct the Java binding touches, and the enum values it uses,
 * as "name value" lines. VerbsLayoutTest compiles this against <infiniband/verbs.h> and compares each line with the
 * constants in io.rdmakv.transport.verbs.ffi.VerbsLayout: a mismatch fails the build.
 */
#include <stddef.h>
#include <stdio.h>
#include <infiniband/verbs.h>

#define SIZE(t)        printf("sizeof.%s %zu\n", #t, sizeof(struct t))
#define OFF(t, f)      printf("%s.%s %zu\n", #t, #f, offsetof(struct t, f))
#define VAL(n)         printf("%s %ld\n", #n, (long)(n))

int main(void)
{
    OFF(ibv_context, device);
    OFF(ibv_context, ops);
    printf("ibv_context.ops.poll_cq %zu\n", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, poll_cq));
    printf("ibv_context.ops.req_notify_cq %zu\n", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, req_notify_cq));
    printf("ibv_context.ops.post_send %zu\n", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, post_send));
    printf("ibv_context.ops.post_recv %zu\n", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, post_recv));
    printf("ibv_context.ops.alloc_mw %zu\n", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, alloc_mw));
    printf("ibv_context.ops.dealloc_mw %zu\n", offsetof(struct ibv_context, ops) + offsetof(struct ibv_context_ops, dealloc_mw));

    SIZE(ibv_device_attr);
    OFF(ibv_device_attr, max_mr_size);
    OFF(ibv_device_attr, max_qp);
    OFF(ibv_device_attr, max_qp_wr);
    OFF(ibv_device_attr, device_cap_flags);
    OFF(ibv_device_attr, max_sge);
    OFF(ibv_device_attr, max_cq);
    OFF(ibv_device_attr, max_cqe);
    OFF(ibv_device_attr, max_mr);
    OFF(ibv_device_attr, max_qp_rd_atom);
    OFF(ibv_device_attr, max_qp_init_rd_atom);
    OFF(ibv_device_attr, phys_port_cnt);

    SIZE(ibv_port_attr);
    OFF(ibv_port_attr, state);
    OFF(ibv_port_attr, max_mtu);
    OFF(ibv_port_attr, active_mtu);
    OFF(ibv_port_attr, gid_tbl_len);
    OFF(ibv_port_attr, max_msg_sz);
    OFF(ibv_port_attr, lid);
    OFF(ibv_port_attr, active_width);
    OFF(ibv_port_attr, active_speed);
    OFF(ibv_port_attr, phys_state);
    OFF(ibv_port_attr, link_layer);

    SIZE(ibv_mr);
    OFF(ibv_mr, addr);
    OFF(ibv_mr, length);
    OFF(ibv_mr, lkey);
    OFF(ibv_mr, rkey);

    SIZE(ibv_qp);
    OFF(ibv_qp, qp_num);
    OFF(ibv_qp, state);

    SIZE(ibv_comp_channel);
    OFF(ibv_comp_channel, context);
    OFF(ibv_comp_channel, fd);

    SIZE(ibv_cq);
    OFF(ibv_cq, cqe);

    printf("sizeof.ibv_gid %zu\n", sizeof(union ibv_gid));

    SIZE(ibv_sge);
    OFF(ibv_sge, addr);
    OFF(ibv_sge, length);
    OFF(ibv_sge, lkey);

    SIZE(ibv_send_wr);
    OFF(ibv_send_wr, wr_id);
    OFF(ibv_send_wr, next);
    OFF(ibv_send_wr, sg_list);
    OFF(ibv_send_wr, num_sge);
    OFF(ibv_send_wr, opcode);
    OFF(ibv_send_wr, send_flags);
    OFF(ibv_send_wr, imm_data);
    OFF(ibv_send_wr, wr.rdma.remote_addr);
    OFF(ibv_send_wr, wr.rdma.rkey);
    OFF(ibv_send_wr, invalidate_rkey);
    OFF(ibv_send_wr, bind_mw.mw);
    OFF(ibv_send_wr, bind_mw.rkey);
    OFF(ibv_send_wr, bind_mw.bind_info.mr);
    OFF(ibv_send_wr, bind_mw.bind_info.addr);
    OFF(ibv_send_wr, bind_mw.bind_info.length);
    OFF(ibv_send_wr, bind_mw.bind_info.mw_access_flags);

    SIZE(ibv_mw);
    OFF(ibv_mw, context);
    OFF(ibv_mw, rkey);

    SIZE(ibv_recv_wr);
    OFF(ibv_recv_wr, wr_id);
    OFF(ibv_recv_wr, next);
    OFF(ibv_recv_wr, sg_list);
    OFF(ibv_recv_wr, num_sge);

    SIZE(ibv_wc);
    OFF(ibv_wc, wr_id);
    OFF(ibv_wc, status);
    OFF(ibv_wc, opcode);
    OFF(ibv_wc, vendor_err);
    OFF(ibv_wc, byte_len);
    OFF(ibv_wc, imm_data);
    OFF(ibv_wc, qp_num);
    OFF(ibv_wc, wc_flags);

    SIZE(ibv_qp_cap);
    SIZE(ibv_qp_init_attr);
    OFF(ibv_qp_init_attr, qp_context);
    OFF(ibv_qp_init_attr, send_cq);
    OFF(ibv_qp_init_attr, recv_cq);
    OFF(ibv_qp_init_attr, srq);
    OFF(ibv_qp_init_attr, cap.max_send_wr);
    OFF(ibv_qp_init_attr, cap.max_recv_wr);
    OFF(ibv_qp_init_attr, cap.max_send_sge);
    OFF(ibv_qp_init_attr, cap.max_recv_sge);
    OFF(ibv_qp_init_attr, cap.max_inline_data);
    OFF(ibv_qp_init_attr, qp_type);
    OFF(ibv_qp_init_attr, sq_sig_all);

    SIZE(ibv_qp_attr);
    OFF(ibv_qp_attr, qp_state);
    OFF(ibv_qp_attr, path_mtu);
    OFF(ibv_qp_attr, rq_psn);
    OFF(ibv_qp_attr, sq_psn);
    OFF(ibv_qp_attr, dest_qp_num);
    OFF(ibv_qp_attr, qp_access_flags);
    OFF(ibv_qp_attr, ah_attr.grh.dgid);
    OFF(ibv_qp_attr, ah_attr.grh.flow_label);
    OFF(ibv_qp_attr, ah_attr.grh.sgid_index);
    OFF(ibv_qp_attr, ah_attr.grh.hop_limit);
    OFF(ibv_qp_attr, ah_attr.grh.traffic_class);
    OFF(ibv_qp_attr, ah_attr.dlid);
    OFF(ibv_qp_attr, ah_attr.sl);
    OFF(ibv_qp_attr, ah_attr.src_path_bits);
    OFF(ibv_qp_attr, ah_attr.static_rate);
    OFF(ibv_qp_attr, ah_attr.is_global);
    OFF(ibv_qp_attr, ah_attr.port_num);
    OFF(ibv_qp_attr, pkey_index);
    OFF(ibv_qp_attr, max_rd_atomic);
    OFF(ibv_qp_attr, max_dest_rd_atomic);
    OFF(ibv_qp_attr, min_rnr_timer);
    OFF(ibv_qp_attr, port_num);
    OFF(ibv_qp_attr, timeout);
    OFF(ibv_qp_attr, retry_cnt);
    OFF(ibv_qp_attr, rnr_retry);

    VAL(IBV_QPT_RC);
    VAL(IBV_QPS_RESET);
    VAL(IBV_QPS_INIT);
    VAL(IBV_QPS_RTR);
    VAL(IBV_QPS_RTS);
    VAL(IBV_QPS_ERR);
    VAL(IBV_QP_STATE);
    VAL(IBV_QP_ACCESS_FLAGS);
    VAL(IBV_QP_PKEY_INDEX);
    VAL(IBV_QP_PORT);
    VAL(IBV_QP_AV);
    VAL(IBV_QP_PATH_MTU);
    VAL(IBV_QP_TIMEOUT);
    VAL(IBV_QP_RETRY_CNT);
    VAL(IBV_QP_RNR_RETRY);
    VAL(IBV_QP_RQ_PSN);
    VAL(IBV_QP_MAX_QP_RD_ATOMIC);
    VAL(IBV_QP_MIN_RNR_TIMER);
    VAL(IBV_QP_SQ_PSN);
    VAL(IBV_QP_MAX_DEST_RD_ATOMIC);
    VAL(IBV_QP_DEST_QPN);
    VAL(IBV_ACCESS_LOCAL_WRITE);
    VAL(IBV_ACCESS_REMOTE_WRITE);
    VAL(IBV_ACCESS_REMOTE_READ);
    VAL(IBV_ACCESS_MW_BIND);
    VAL(IBV_MW_TYPE_2);
    VAL(IBV_DEVICE_MEM_WINDOW_TYPE_2A);
    VAL(IBV_DEVICE_MEM_WINDOW_TYPE_2B);
    VAL(IBV_WR_SEND);
    VAL(IBV_WR_SEND_WITH_IMM);
    VAL(IBV_WR_RDMA_READ);
    VAL(IBV_WR_LOCAL_INV);
    VAL(IBV_WR_BIND_MW);
    VAL(IBV_SEND_SIGNALED);
    VAL(IBV_SEND_INLINE);
    VAL(IBV_WC_SUCCESS);
    VAL(IBV_WC_LOC_LEN_ERR);
    VAL(IBV_WC_LOC_PROT_ERR);
    VAL(IBV_WC_WR_FLUSH_ERR);
    VAL(IBV_WC_REM_ACCESS_ERR);
    VAL(IBV_WC_MW_BIND_ERR);
    VAL(IBV_WC_BIND_MW);
    VAL(IBV_WC_LOCAL_INV);
    VAL(IBV_WC_REM_INV_REQ_ERR);
    VAL(IBV_WC_RETRY_EXC_ERR);
    VAL(IBV_WC_RNR_RETRY_EXC_ERR);
    VAL(IBV_WC_SEND);
    VAL(IBV_WC_RDMA_READ);
    VAL(IBV_WC_RECV);
    VAL(IBV_WC_WITH_IMM);
    VAL(IBV_PORT_NOP);
    VAL(IBV_PORT_DOWN);
    VAL(IBV_PORT_INIT);
    VAL(IBV_PORT_ARMED);
    VAL(IBV_PORT_ACTIVE);
    VAL(IBV_PORT_ACTIVE_DEFER);
    VAL(IBV_MTU_256);
    VAL(IBV_MTU_4096);
    VAL(IBV_LINK_LAYER_UNSPECIFIED);
    VAL(IBV_LINK_LAYER_INFINIBAND);
    VAL(IBV_LINK_LAYER_ETHERNET);
    return 0;
}

package io.rdmakv.transport.verbs.ffi;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;

/**
 * The exported functions of libibverbs.so.1, bound by JNA direct mapping (no native code is compiled by the build).
 * Pointers travel as {@code long} addresses, which is the same calling convention as {@code void *} on LP64.
 *
 * <p>Symbol versions: {@code dlsym} resolves the default version of each symbol, which in rdma-core 44 is the
 * {@code IBVERBS_1.1} one ({@code ibv_reg_mr@@IBVERBS_1.1}, {@code ibv_query_port@@IBVERBS_1.1}, ...). In verbs.h
 * {@code ibv_reg_mr} and {@code ibv_query_port} are macros around inline helpers that end up calling exactly these
 * exported functions for the plain cases used here. {@code ibv_post_send}, {@code ibv_post_recv},
 * {@code ibv_poll_cq} and {@code ibv_req_notify_cq} are not exported at all: see {@link VerbsOps}.
 *
 * <p>Loading is attempted once; {@link #loadFailure()} tells why it failed, so the transport probe can report it
 * instead of letting an {@link UnsatisfiedLinkError} escape.
 */
public final class LibIbverbs
{
    public static final String LIBRARY_NAME = "ibverbs";

    private static final Throwable LOAD_FAILURE;

    static
    {
        Throwable failure = null;
        try
        {
            Native.register(LibIbverbs.class, NativeLibrary.getInstance(LIBRARY_NAME));
        }
        catch (final Throwable t)
        {
            failure = t;
        }
        LOAD_FAILURE = failure;
    }

    private LibIbverbs()
    {
    }

    /** True when the library was found and every function below is bound. */
    public static boolean isLoaded()
    {
        return LOAD_FAILURE == null;
    }

    /** Why the library could not be bound, or {@code null}. */
    public static Throwable loadFailure()
    {
        return LOAD_FAILURE;
    }

    /** {@code struct ibv_device **ibv_get_device_list(int *num_devices)} */
    public static native long ibv_get_device_list(int[] numDevices);

    /** {@code void ibv_free_device_list(struct ibv_device **list)} */
    public static native void ibv_free_device_list(long list);

    /** {@code const char *ibv_get_device_name(struct ibv_device *device)} */
    public static native String ibv_get_device_name(long device);

    /** {@code struct ibv_context *ibv_open_device(struct ibv_device *device)} */
    public static native long ibv_open_device(long device);

    /** {@code int ibv_close_device(struct ibv_context *context)} */
    public static native int ibv_close_device(long context);

    /** {@code int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)} */
    public static native int ibv_query_device(long context, long deviceAttr);

    /** {@code int ibv_query_port(struct ibv_context *, uint8_t port_num, struct _compat_ibv_port_attr *)} */
    public static native int ibv_query_port(long context, byte portNum, long portAttr);

    /** {@code int ibv_query_gid(struct ibv_context *, uint8_t port_num, int index, union ibv_gid *gid)} */
    public static native int ibv_query_gid(long context, byte portNum, int index, long gid);

    /** {@code struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)} */
    public static native long ibv_alloc_pd(long context);

    /** {@code int ibv_dealloc_pd(struct ibv_pd *pd)} */
    public static native int ibv_dealloc_pd(long pd);

    /** {@code struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)} */
    public static native long ibv_reg_mr(long pd, long address, long length, int access);

    /** {@code int ibv_dereg_mr(struct ibv_mr *mr)} */
    public static native int ibv_dereg_mr(long mr);

    /** {@code struct ibv_cq *ibv_create_cq(struct ibv_context *, int cqe, void *cq_context, channel, int vector)} */
    public static native long ibv_create_cq(long context, int cqe, long cqContext, long channel, int compVector);

    /** {@code struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *context)} */
    public static native long ibv_create_comp_channel(long context);

    /** {@code int ibv_destroy_comp_channel(struct ibv_comp_channel *channel)}: every CQ on it destroyed first. */
    public static native int ibv_destroy_comp_channel(long channel);

    /**
     * {@code int ibv_get_cq_event(struct ibv_comp_channel *, struct ibv_cq **cq, void **cq_context)}: reads one event
     * from the channel's fd; with the fd non-blocking, -1 (errno EAGAIN) when there is none.
     */
    public static native int ibv_get_cq_event(long channel, long cqOut, long cqContextOut);

    /** {@code void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)}: takes a lock; call it in batches. */
    public static native void ibv_ack_cq_events(long cq, int nevents);

    /** {@code int ibv_destroy_cq(struct ibv_cq *cq)} */
    public static native int ibv_destroy_cq(long cq);

    /** {@code struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)} */
    public static native long ibv_create_qp(long pd, long initAttr);

    /** {@code int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)} */
    public static native int ibv_modify_qp(long qp, long attr, int attrMask);

    /** {@code int ibv_destroy_qp(struct ibv_qp *qp)} */
    public static native int ibv_destroy_qp(long qp);

    /** {@code const char *ibv_wc_status_str(enum ibv_wc_status status)} */
    public static native String ibv_wc_status_str(int status);

    /** The calling thread's {@code errno} as JNA preserved it after the last native call. */
    public static int errno()
    {
        return Native.getLastError();
    }

    /** A readable errno: {@code "Cannot allocate memory (errno 12)"}. */
    public static String describeErrno(final int errno)
    {
        return Errno.describe(errno);
    }
}

package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.NativeBlock;
import io.rdmakv.transport.verbs.ffi.VerbsOps;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayList;
import java.util.List;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * An opened RDMA device: its {@code ibv_context}, one protection domain, the data-path function pointers, and what
 * was learnt about the chosen port (state, LID, active MTU, link layer) and GID. Opened once per transport.
 */
final class VerbsDevice implements AutoCloseable
{
    final String name;
    final long context;
    final long pd;
    final VerbsOps ops;
    final int port;
    final int lid;
    final int activeMtu;
    final int linkLayer;
    final int gidIndex;
    final byte[] gid = new byte[16];
    final int maxQpWr;
    final int maxCqe;
    final int maxRdAtomic;
    /** {@code device_cap_flags} has IBV_DEVICE_MEM_WINDOW_TYPE_2A or _2B. */
    private final boolean windowsAdvertised;
    private boolean closed;

    private VerbsDevice(final String name, final long context, final VerbsConfig config)
    {
        this.name = name;
        this.context = context;
        this.port = config.port;
        final NativeBlock scratch = new NativeBlock(NativeBlock.PAGE_SIZE);
        final UnsafeBuffer b = scratch.buffer();
        try
        {
            check(LibIbverbs.ibv_query_device(context, scratch.address()), "ibv_query_device(" + name + ")");
            maxQpWr = b.getInt(DEVICE_ATTR_MAX_QP_WR);
            maxCqe = b.getInt(DEVICE_ATTR_MAX_CQE);
            windowsAdvertised = (b.getInt(DEVICE_ATTR_DEVICE_CAP_FLAGS) &
                (DEVICE_MEM_WINDOW_TYPE_2A | DEVICE_MEM_WINDOW_TYPE_2B)) != 0;
            maxRdAtomic = Math.max(1, Math.min(16,
                Math.min(b.getInt(DEVICE_ATTR_MAX_QP_RD_ATOM), b.getInt(DEVICE_ATTR_MAX_QP_INIT_RD_ATOM))));
            final int ports = b.getByte(DEVICE_ATTR_PHYS_PORT_CNT) & 0xFF;
            if (port > ports)
            {
                throw new TransportException("verbs.port=" + port + " but device " + name + " has " + ports + " port(s)");
            }

            b.setMemory(0, b.capacity(), (byte)0);
            check(LibIbverbs.ibv_query_port(context, (byte)port, scratch.address()),
                "ibv_query_port(" + name + ", " + port + ")");
            final int state = b.getInt(PORT_ATTR_STATE);
            if (state != PORT_ACTIVE)
            {
                throw new TransportException("port " + port + " of " + name + " is " + portState(state) +
                    ", not ACTIVE (is its network interface up?)");
            }
            activeMtu = b.getInt(PORT_ATTR_ACTIVE_MTU);
            lid = b.getShort(PORT_ATTR_LID) & 0xFFFF;
            linkLayer = b.getByte(PORT_ATTR_LINK_LAYER) & 0xFF;
            final int gidTableLength = b.getInt(PORT_ATTR_GID_TBL_LEN);
            gidIndex = chooseGid(config.gidIndex, gidTableLength, scratch);

            ops = VerbsOps.of(context);
            // Last, so that nothing after it can fail and leak it.
            pd = LibIbverbs.ibv_alloc_pd(context);
            if (pd == 0)
            {
                throw new TransportException("ibv_alloc_pd(" + name + ") failed: " +
                    LibIbverbs.describeErrno(LibIbverbs.errno()));
            }
        }
        catch (final RuntimeException e)
        {
            LibIbverbs.ibv_close_device(context);
            throw e;
        }
    }

    /**
     * Open the configured device (or the first one with an ACTIVE port).
     *
     * @throws TransportException with the reason when nothing usable is found.
     */
    static VerbsDevice open(final VerbsConfig config)
    {
        final int[] count = new int[1];
        final long list = LibIbverbs.ibv_get_device_list(count);
        if (list == 0)
        {
            throw new TransportException("ibv_get_device_list failed: " + LibIbverbs.describeErrno(LibIbverbs.errno()));
        }
        try
        {
            final StringBuilder tried = new StringBuilder();
            for (int i = 0; i < count[0]; i++)
            {
                final long device = new com.sun.jna.Pointer(list).getLong((long)i * 8);
                final String deviceName = LibIbverbs.ibv_get_device_name(device);
                if (config.device != null && !config.device.equals(deviceName))
                {
                    continue;
                }
                final long context = LibIbverbs.ibv_open_device(device);
                if (context == 0)
                {
                    tried.append(deviceName).append(": ibv_open_device failed: ")
                        .append(LibIbverbs.describeErrno(LibIbverbs.errno())).append("; ");
                    continue;
                }
                try
                {
                    return new VerbsDevice(deviceName, context, config);
                }
                catch (final TransportException e)
                {
                    if (config.device != null)
                    {
                        throw e;
                    }
                    tried.append(e.getMessage()).append("; ");
                }
            }
            if (config.device != null && tried.length() == 0)
            {
                throw new TransportException("verbs.device=" + config.device + " not found among " + count[0] +
                    " RDMA device(s)");
            }
            throw new TransportException("no usable RDMA device (" + count[0] + " found): " + tried);
        }
        finally
        {
            LibIbverbs.ibv_free_device_list(list);
        }
    }

    /** Enumerate devices and their port states, closing everything again (for the availability probe). */
    static List<DeviceSummary> survey()
    {
        final List<DeviceSummary> result = new ArrayList<>();
        final int[] count = new int[1];
        final long list = LibIbverbs.ibv_get_device_list(count);
        if (list == 0)
        {
            return result;
        }
        try
        {
            final NativeBlock scratch = new NativeBlock(NativeBlock.PAGE_SIZE);
            final UnsafeBuffer b = scratch.buffer();
            for (int i = 0; i < count[0]; i++)
            {
                final long device = new com.sun.jna.Pointer(list).getLong((long)i * 8);
                final String deviceName = LibIbverbs.ibv_get_device_name(device);
                final List<String> states = new ArrayList<>();
                boolean active = false;
                final long context = LibIbverbs.ibv_open_device(device);
                if (context == 0)
                {
                    states.add("cannot open: " + LibIbverbs.describeErrno(LibIbverbs.errno()));
                }
                else
                {
                    try
                    {
                        b.setMemory(0, b.capacity(), (byte)0);
                        if (LibIbverbs.ibv_query_device(context, scratch.address()) == 0)
                        {
                            final int ports = b.getByte(DEVICE_ATTR_PHYS_PORT_CNT) & 0xFF;
                            for (int p = 1; p <= ports; p++)
                            {
                                b.setMemory(0, b.capacity(), (byte)0);
                                if (LibIbverbs.ibv_query_port(context, (byte)p, scratch.address()) == 0)
                                {
                                    final int state = b.getInt(PORT_ATTR_STATE);
                                    active |= state == PORT_ACTIVE;
                                    states.add("port " + p + " " + portState(state));
                                }
                            }
                        }
                    }
                    finally
                    {
                        LibIbverbs.ibv_close_device(context);
                    }
                }
                result.add(new DeviceSummary(deviceName, states, active));
            }
        }
        finally
        {
            LibIbverbs.ibv_free_device_list(list);
        }
        return result;
    }

    static String portState(final int state)
    {
        switch (state)
        {
            case PORT_NOP: return "NOP";
            case PORT_DOWN: return "DOWN";
            case PORT_INIT: return "INIT";
            case PORT_ARMED: return "ARMED";
            case PORT_ACTIVE: return "ACTIVE";
            case PORT_ACTIVE_DEFER: return "ACTIVE_DEFER";
            default: return "state " + state;
        }
    }

    /** Bytes of an {@code enum ibv_mtu} value (1 = 256 ... 5 = 4096). */
    static int mtuBytes(final int ibvMtu)
    {
        return 128 << ibvMtu;
    }

    /**
     * True when the device advertises type 2 memory windows and its provider implements {@code alloc_mw}: the
     * transport then declares {@link io.rdmakv.transport.TransportCapability#MEMORY_WINDOWS}.
     */
    boolean supportsWindows()
    {
        return windowsAdvertised && ops.canAllocateWindows();
    }

    /** True once closed: the protection domain and context are gone, so are the windows allocated in them. */
    synchronized boolean isClosed()
    {
        return closed;
    }

    boolean isEthernet()
    {
        return linkLayer == LINK_LAYER_ETHERNET;
    }

    private int chooseGid(final int configured, final int tableLength, final NativeBlock scratch)
    {
        final UnsafeBuffer b = scratch.buffer();
        if (configured >= 0)
        {
            if (configured >= tableLength)
            {
                throw new TransportException("verbs.gidIndex=" + configured + " but port " + port + " of " + name +
                    " has " + tableLength + " GID entries");
            }
            check(LibIbverbs.ibv_query_gid(context, (byte)port, configured, scratch.address()), "ibv_query_gid");
            b.getBytes(0, gid);
            return configured;
        }
        // RoCE v2 over IPv4 uses the IPv4-mapped GID (::ffff:a.b.c.d); on rxe it sits at index 1 (0 is link-local).
        int fallback = -1;
        for (int i = 0; i < Math.min(tableLength, 256); i++)
        {
            b.setMemory(0, 16, (byte)0);
            if (LibIbverbs.ibv_query_gid(context, (byte)port, i, scratch.address()) != 0)
            {
                continue;
            }
            boolean zero = true;
            for (int k = 0; k < 16; k++)
            {
                zero &= b.getByte(k) == 0;
            }
            if (zero)
            {
                continue;
            }
            if (fallback < 0)
            {
                fallback = i;
                b.getBytes(0, gid);
            }
            if (isIpv4Mapped(b))
            {
                b.getBytes(0, gid);
                return i;
            }
        }
        if (isEthernetLinkLayer() && fallback < 0)
        {
            throw new TransportException("port " + port + " of " + name + " has no GID: an Ethernet (RoCE) port " +
                "needs an IP address on its network interface");
        }
        return Math.max(fallback, 0);
    }

    private boolean isEthernetLinkLayer()
    {
        return linkLayer == LINK_LAYER_ETHERNET;
    }

    private static boolean isIpv4Mapped(final UnsafeBuffer gid)
    {
        for (int k = 0; k < 10; k++)
        {
            if (gid.getByte(k) != 0)
            {
                return false;
            }
        }
        return gid.getByte(10) == (byte)0xFF && gid.getByte(11) == (byte)0xFF;
    }

    static void check(final int rc, final String what)
    {
        if (rc != 0)
        {
            // Verbs calls return either -1 with errno or the errno value itself.
            final int errno = rc > 0 ? rc : LibIbverbs.errno();
            throw new TransportException(what + " failed: " + LibIbverbs.describeErrno(errno));
        }
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        LibIbverbs.ibv_dealloc_pd(pd);
        LibIbverbs.ibv_close_device(context);
    }

    @Override
    public String toString()
    {
        return name + " port " + port + " (lid " + lid + ", mtu " + mtuBytes(activeMtu) + ", gid index " + gidIndex + ")";
    }
}

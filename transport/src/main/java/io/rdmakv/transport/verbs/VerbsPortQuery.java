package io.rdmakv.transport.verbs;

import com.sun.jna.Pointer;
import io.rdmakv.transport.device.PortAttributes;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;
import io.rdmakv.transport.verbs.ffi.NativeBlock;
import org.agrona.DirectBuffer;

import java.util.Optional;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;

/**
 * {@code ibv_query_port} for {@code doctor}: opens the named device, queries one port, closes the device again, and
 * decodes {@code struct ibv_port_attr} the way {@code ibv_devinfo} prints it (state, MTUs, width, speed, link layer,
 * LID). Diagnostics only: it never touches an opened transport.
 */
final class VerbsPortQuery
{
    private VerbsPortQuery()
    {
    }

    /**
     * Query port {@code port} of device {@code device}.
     *
     * @return the decoded attributes, or empty when the device or port does not exist or a call failed.
     */
    static Optional<PortAttributes> query(final String device, final int port)
    {
        if (port < 1 || port > 255)
        {
            return Optional.empty();
        }
        final int[] count = new int[1];
        final long list = LibIbverbs.ibv_get_device_list(count);
        if (list == 0)
        {
            return Optional.empty();
        }
        try
        {
            for (int i = 0; i < count[0]; i++)
            {
                final long candidate = new Pointer(list).getLong((long)i * 8);
                if (device.equals(LibIbverbs.ibv_get_device_name(candidate)))
                {
                    return query(candidate, port);
                }
            }
            return Optional.empty();
        }
        finally
        {
            LibIbverbs.ibv_free_device_list(list);
        }
    }

    private static Optional<PortAttributes> query(final long device, final int port)
    {
        final long context = LibIbverbs.ibv_open_device(device);
        if (context == 0)
        {
            return Optional.empty();
        }
        try
        {
            // A page, zeroed: newer rdma-core versions write a larger struct than the one the layout test knows.
            final NativeBlock scratch = new NativeBlock(NativeBlock.PAGE_SIZE);
            if (LibIbverbs.ibv_query_port(context, (byte)port, scratch.address()) != 0)
            {
                return Optional.empty();
            }
            return Optional.of(decode(scratch.buffer()));
        }
        finally
        {
            LibIbverbs.ibv_close_device(context);
        }
    }

    /** Decode a {@code struct ibv_port_attr} laid out at offset 0 of {@code attr}. */
    static PortAttributes decode(final DirectBuffer attr)
    {
        return new PortAttributes(
            VerbsDevice.portState(attr.getInt(PORT_ATTR_STATE)),
            mtuBytes(attr.getInt(PORT_ATTR_ACTIVE_MTU)),
            mtuBytes(attr.getInt(PORT_ATTR_MAX_MTU)),
            width(attr.getByte(PORT_ATTR_ACTIVE_WIDTH) & 0xFF),
            speed(attr.getByte(PORT_ATTR_ACTIVE_SPEED) & 0xFF),
            linkLayer(attr.getByte(PORT_ATTR_LINK_LAYER) & 0xFF),
            attr.getShort(PORT_ATTR_LID) & 0xFFFF);
    }

    /** Bytes of an {@code enum ibv_mtu} (1 = 256 ... 5 = 4096); 0 for a value outside it. */
    static int mtuBytes(final int ibvMtu)
    {
        return ibvMtu >= MTU_256 && ibvMtu <= MTU_4096 ? VerbsDevice.mtuBytes(ibvMtu) : 0;
    }

    /** {@code active_width} as {@code ibv_devinfo} names it (a bit per width). */
    static String width(final int code)
    {
        switch (code)
        {
            case 1: return "1X";
            case 2: return "4X";
            case 4: return "8X";
            case 8: return "12X";
            case 16: return "2X";
            default: return "width code " + code;
        }
    }

    /** {@code active_speed} per lane as {@code ibv_devinfo} names it (SDR 1 ... NDR 128). */
    static String speed(final int code)
    {
        switch (code)
        {
            case 1: return "2.5 Gbps";
            case 2: return "5.0 Gbps";
            case 4:
            case 8: return "10.0 Gbps";
            case 16: return "14.0 Gbps";
            case 32: return "25.0 Gbps";
            case 64: return "50.0 Gbps";
            case 128: return "100.0 Gbps";
            default: return "speed code " + code;
        }
    }

    /** {@code link_layer}; unspecified (older kernels) means InfiniBand, as {@code ibv_devinfo} reads it. */
    static String linkLayer(final int code)
    {
        switch (code)
        {
            case LINK_LAYER_UNSPECIFIED:
            case LINK_LAYER_INFINIBAND: return "InfiniBand";
            case LINK_LAYER_ETHERNET: return "Ethernet";
            default: return "link layer " + code;
        }
    }
}

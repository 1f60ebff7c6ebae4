package io.rdmakv.transport.verbs;

import io.rdmakv.transport.device.PortAttributes;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.util.Optional;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Decoding {@code struct ibv_port_attr} for {@code doctor}, over structs laid out by hand at the offsets
 * {@code VerbsLayoutTest} checks against the C header; the real query runs in the SoftRoCE guest's doctor step.
 */
class VerbsPortQueryTest
{
    private static UnsafeBuffer portAttr(final int state, final int maxMtu, final int activeMtu, final int width,
        final int speed, final int linkLayer, final int lid)
    {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[SIZEOF_PORT_ATTR]);
        b.putInt(PORT_ATTR_STATE, state);
        b.putInt(PORT_ATTR_MAX_MTU, maxMtu);
        b.putInt(PORT_ATTR_ACTIVE_MTU, activeMtu);
        b.putByte(PORT_ATTR_ACTIVE_WIDTH, (byte)width);
        b.putByte(PORT_ATTR_ACTIVE_SPEED, (byte)speed);
        b.putByte(PORT_ATTR_PHYS_STATE, (byte)5);
        b.putByte(PORT_ATTR_LINK_LAYER, (byte)linkLayer);
        b.putShort(PORT_ATTR_LID, (short)lid);
        return b;
    }

    @Test
    void shouldDecodeASoftRocePortAsIbvDevinfoPrintsIt()
    {
        // rxe0 on eth0 with MTU 9000: ACTIVE, max_mtu 4096 (5), active_mtu 4096 (5), 1X, 2.5 Gbps, Ethernet, LID 0.
        assertEquals(new PortAttributes("ACTIVE", 4096, 4096, "1X", "2.5 Gbps", "Ethernet", 0),
            VerbsPortQuery.decode(portAttr(PORT_ACTIVE, MTU_4096, MTU_4096, 1, 1, LINK_LAYER_ETHERNET, 0)));
    }

    @Test
    void shouldDecodeAnInfinibandPortWithItsLidAndAnUnspecifiedLinkLayerAsInfiniband()
    {
        final PortAttributes edr = VerbsPortQuery.decode(portAttr(PORT_ACTIVE, MTU_4096, 3, 2, 32,
            LINK_LAYER_INFINIBAND, 0xBEEF));
        assertEquals(new PortAttributes("ACTIVE", 1024, 4096, "4X", "25.0 Gbps", "InfiniBand", 0xBEEF), edr);
        assertEquals("ACTIVE, 4X 25.0 Gbps, InfiniBand, LID 0xbeef", edr.describe());
        assertEquals("InfiniBand", VerbsPortQuery.decode(portAttr(PORT_INIT, MTU_256, MTU_256, 1, 1,
            LINK_LAYER_UNSPECIFIED, 1)).linkLayer());
    }

    @Test
    void shouldNameEveryKnownWidthSpeedAndStateAndShowUnknownCodes()
    {
        assertEquals("12X", VerbsPortQuery.width(8));
        assertEquals("2X", VerbsPortQuery.width(16));
        assertEquals("width code 3", VerbsPortQuery.width(3));
        assertEquals("10.0 Gbps", VerbsPortQuery.speed(4));
        assertEquals("10.0 Gbps", VerbsPortQuery.speed(8));
        assertEquals("100.0 Gbps", VerbsPortQuery.speed(128));
        assertEquals("speed code 0", VerbsPortQuery.speed(0));
        assertEquals("DOWN", VerbsPortQuery.decode(portAttr(PORT_DOWN, MTU_4096, MTU_4096, 1, 1, 2, 0)).state());
        assertEquals("state 9", VerbsPortQuery.decode(portAttr(9, MTU_4096, MTU_4096, 1, 1, 2, 0)).state());
        assertEquals(0, VerbsPortQuery.mtuBytes(0), "an MTU code outside enum ibv_mtu is not a size");
        assertEquals(256, VerbsPortQuery.mtuBytes(MTU_256));
    }

    @Test
    void shouldAnswerEmptyForAnUnknownDeviceOrPortWithoutThrowing()
    {
        final VerbsTransportProvider provider = new VerbsTransportProvider();
        assertEquals(Optional.empty(), provider.portAttributes("no-such-device-0", 1));
        assertEquals(Optional.empty(), provider.portAttributes(null, 1));
        assertTrue(provider.portAttributes("no-such-device-0", 0).isEmpty());
    }
}

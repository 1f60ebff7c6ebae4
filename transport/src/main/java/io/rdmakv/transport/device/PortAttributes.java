package io.rdmakv.transport.device;

/**
 * One port as {@code ibv_query_port} reports it, decoded: the MTUs, which sysfs does not show, and the state, width,
 * speed, link layer and LID as the verbs library sees them, for {@code doctor} to print beside the sysfs view.
 *
 * @param state          the port state as verbs names it ({@code ACTIVE}, {@code DOWN}, ...).
 * @param activeMtuBytes the active MTU in bytes (256..4096), the one queue pairs on this port use.
 * @param maxMtuBytes    the largest MTU the port supports, in bytes.
 * @param width          the active link width ({@code 4X}), or {@code width code N} for a code not known here.
 * @param speed          the active per-lane speed ({@code 25.0 Gbps}), or {@code speed code N}.
 * @param linkLayer      {@code InfiniBand} or {@code Ethernet}.
 * @param lid            the port's LID (0 on Ethernet, where RoCE addresses by GID).
 */
public record PortAttributes(String state, int activeMtuBytes, int maxMtuBytes, String width, String speed,
    String linkLayer, int lid)
{
    /** {@code "ACTIVE, 4X 25.0 Gbps, Ethernet, LID 0x0"}: everything but the MTUs, which have their own line. */
    public String describe()
    {
        return state + ", " + width + " " + speed + ", " + linkLayer + ", LID 0x" + Integer.toHexString(lid);
    }
}

package io.rdmakv.protocol.wire;

/**
 * One member of a replicated cluster in a {@link Welcome}, whether or not it is primary of a range: where its control
 * plane is (for STATS of every node, not only of the primaries the map names).
 *
 * <pre>
 *  u32 node id | u16 control port | str8 host
 * </pre>
 *
 * @param nodeId      the member.
 * @param host        its control-plane host.
 * @param controlPort its control-plane port, 0..65535.
 */
public record MemberAddress(int nodeId, String host, int controlPort)
{
    public MemberAddress
    {
        if (controlPort < 0 || controlPort > 0xFFFF)
        {
            throw new IllegalArgumentException("control port " + controlPort + " not in 0..65535");
        }
    }
}

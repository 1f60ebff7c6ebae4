package io.rdmakv.transport.device;

/**
 * One non-empty entry of a port's GID table: {@code gids/N}, {@code gid_attrs/types/N}, {@code gid_attrs/ndevs/N}.
 *
 * @param index   the table index N (what {@code verbs.gidIndex} names).
 * @param gid     as the kernel prints it, e.g. {@code fe80:0000:0000:0000:5054:00ff:fe12:3456}.
 * @param type    {@code "IB/RoCE v1"} or {@code "RoCE v2"}; {@code null} when the kernel gives none (InfiniBand).
 * @param netdev  the network device of a RoCE GID, e.g. {@code eth0}; {@code null} when none.
 */
public record GidEntry(int index, String gid, String type, String netdev)
{
    /** True for a RoCE v2 GID (routable over UDP/IP): the kind RoCE deployments should use. */
    public boolean isRoceV2()
    {
        return type != null && type.trim().equalsIgnoreCase("RoCE v2");
    }

    /** True for the all-zero GID the kernel shows for unused table entries. */
    public static boolean isEmpty(final String gid)
    {
        for (int i = 0; i < gid.length(); i++)
        {
            final char c = gid.charAt(i);
            if (c != '0' && c != ':')
            {
                return false;
            }
        }
        return true;
    }

    /** One line for the report: {@code GID[3] 0000:...:ffff:0a00:0002  RoCE v2  eth0}. */
    public String describe()
    {
        return "GID[" + index + "] " + gid + (type == null ? "" : "  " + type) + (netdev == null ? "" : "  " + netdev);
    }
}

package io.rdmakv.it.softroce;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What a test running in the SoftRoCE guest may rely on: the device, address and GID index the guest's init set up
 * (exported by {@code guest-job.sh}, with the same defaults here), and small readers of the guest's sysfs and
 * procfs.
 */
public final class SoftRoceGuest
{
    /** JUnit tag of every test that needs the SoftRoCE guest. */
    public static final String TAG = "softroce";

    /** JUnit tag of guest tests that must run as the unprivileged user with a low memlock limit. */
    public static final String UNPRIVILEGED_TAG = "unprivileged";

    /** The one rxe device; clients and servers in the guest all use it (rxe loops the traffic back). */
    public static final String DEVICE = env("RDMAKV_GUEST_DEVICE", "rxe0");

    /** The guest's own address on eth0 (qemu user networking); every peer in the guest listens on it. */
    public static final String IP = env("RDMAKV_GUEST_IP", "10.0.2.15");

    /** GID index of the RoCE v2 IPv4 GID (index 0 is the IPv6 link-local one). */
    public static final int GID_INDEX = Integer.parseInt(env("RDMAKV_GUEST_GID_INDEX", "1"));

    private static final Path PORT_SYSFS = Path.of("/sys/class/infiniband", DEVICE, "ports", "1");

    private SoftRoceGuest()
    {
    }

    /**
     * One hardware counter of the rxe port (for example {@code sent_pkts}); rxe counts every packet it loops back.
     *
     * @param name counter file name under {@code hw_counters/}.
     * @return the counter's value.
     */
    public static long portCounter(final String name)
    {
        return Long.parseLong(readTrimmed(PORT_SYSFS.resolve("hw_counters").resolve(name)));
    }

    /**
     * @param index GID table index.
     * @return the GID at that index of port 1, as sysfs prints it.
     */
    public static String gid(final int index)
    {
        return readTrimmed(PORT_SYSFS.resolve("gids").resolve(Integer.toString(index)));
    }

    /**
     * @param index GID table index.
     * @return the GID type at that index of port 1 (for example {@code RoCE v2}).
     */
    public static String gidType(final int index)
    {
        return readTrimmed(PORT_SYSFS.resolve("gid_attrs").resolve("types").resolve(Integer.toString(index)));
    }

    /**
     * Whether some process listens on a local TCP port (IPv4 or IPv6), read from {@code /proc/net/tcp*} so that
     * probing never consumes the listener's single accept.
     *
     * @param port TCP port.
     * @return true when a socket in LISTEN state is bound to that port.
     */
    public static boolean isTcpListening(final int port)
    {
        final String hexPort = String.format(Locale.ROOT, ":%04X", port);
        for (final String table : List.of("/proc/net/tcp", "/proc/net/tcp6"))
        {
            final Path path = Path.of(table);
            if (!Files.exists(path))
            {
                continue;
            }
            for (final String line : readLines(path))
            {
                final String[] fields = line.trim().split("\\s+");
                // fields: sl local_address rem_address st ...; st 0A is LISTEN
                if (fields.length > 3 && fields[1].endsWith(hexPort) && "0A".equals(fields[3]))
                {
                    return true;
                }
            }
        }
        return false;
    }

    static String readTrimmed(final Path path)
    {
        try
        {
            return Files.readString(path).trim();
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + path + " (is this the SoftRoCE guest?)", ex);
        }
    }

    static List<String> readLines(final Path path)
    {
        try
        {
            return Files.readAllLines(path);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + path, ex);
        }
    }

    private static String env(final String name, final String defaultValue)
    {
        final String value = System.getenv(name);
        return value == null || value.isBlank() ? defaultValue : value;
    }
}

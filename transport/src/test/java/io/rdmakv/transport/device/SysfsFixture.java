package io.rdmakv.transport.device;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Builds a {@code /sys/class/infiniband} tree in a temporary directory, in the exact formats the kernel writes
 * (every attribute ends with a newline). Test helper shared by the diag tests.
 */
public final class SysfsFixture
{
    private final Path root;

    public SysfsFixture(final Path root)
    {
        this.root = root;
    }

    public Path root()
    {
        return root;
    }

    /** A ConnectX-like InfiniBand device: one ACTIVE EDR port with LID 0x1 and one link-layer GID. */
    public SysfsFixture infinibandDevice(final String name)
    {
        final Path dev = root.resolve(name);
        write(dev.resolve("node_type"), "1: CA");
        write(dev.resolve("fw_ver"), "16.35.2000");
        write(dev.resolve("node_guid"), "b859:9f03:00d4:1a2e");
        write(dev.resolve("board_id"), "MT_0000000010");
        final Path port = dev.resolve("ports").resolve("1");
        write(port.resolve("state"), "4: ACTIVE");
        write(port.resolve("phys_state"), "5: LinkUp");
        write(port.resolve("rate"), "100 Gb/sec (4X EDR)");
        write(port.resolve("link_layer"), "InfiniBand");
        write(port.resolve("lid"), "0x1");
        write(port.resolve("gids").resolve("0"), "fe80:0000:0000:0000:b859:9f03:00d4:1a2e");
        write(port.resolve("gids").resolve("1"), "0000:0000:0000:0000:0000:0000:0000:0000");
        for (final String c : PortCounters.ERROR_COUNTERS.keySet())
        {
            counter(name, 1, c, 0);
        }
        counter(name, 1, "port_xmit_data", 123456789);
        counter(name, 1, "port_rcv_data", 987654321);
        hwCounter(name, 1, "rnr_nak_retry_err", 0);
        hwCounter(name, 1, "local_ack_timeout_err", 0);
        hwCounter(name, 1, "rx_read_requests", 42);
        return this;
    }

    /** A SoftRoCE device on eth0: one ACTIVE Ethernet port, a RoCE v1 and a RoCE v2 GID for 10.0.0.2. */
    public SysfsFixture softRoceDevice(final String name)
    {
        final Path dev = root.resolve(name);
        write(dev.resolve("node_type"), "1: CA");
        write(dev.resolve("fw_ver"), "0.0.0");
        write(dev.resolve("node_guid"), "5054:00ff:fe12:3456");
        final Path port = dev.resolve("ports").resolve("1");
        write(port.resolve("state"), "4: ACTIVE");
        write(port.resolve("phys_state"), "5: LinkUp");
        write(port.resolve("rate"), "10 Gb/sec (1X QDR)");
        write(port.resolve("link_layer"), "Ethernet");
        write(port.resolve("lid"), "0x0");
        gid(name, 1, 0, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "IB/RoCE v1", "eth0");
        gid(name, 1, 1, "fe80:0000:0000:0000:5054:00ff:fe12:3456", "RoCE v2", "eth0");
        gid(name, 1, 2, "0000:0000:0000:0000:0000:ffff:0a00:0002", "IB/RoCE v1", "eth0");
        gid(name, 1, 3, "0000:0000:0000:0000:0000:ffff:0a00:0002", "RoCE v2", "eth0");
        // Unused entries: an all-zero GID and no attribute files (reading them fails with EINVAL in the kernel).
        write(port.resolve("gids").resolve("4"), "0000:0000:0000:0000:0000:0000:0000:0000");
        for (final String c : new String[] {"rcvd_pkts", "sent_pkts", "duplicate_request", "rcvd_rnr_err",
            "send_rnr_err", "retry_exceeded_err", "retry_rnr_exceeded_err", "link_downed", "lifespan"})
        {
            hwCounter(name, 1, c, c.equals("lifespan") ? 10 : 0);
        }
        return this;
    }

    public SysfsFixture gid(final String dev, final int port, final int index, final String gid, final String type,
        final String netdev)
    {
        final Path p = root.resolve(dev).resolve("ports").resolve(Integer.toString(port));
        write(p.resolve("gids").resolve(Integer.toString(index)), gid);
        write(p.resolve("gid_attrs").resolve("types").resolve(Integer.toString(index)), type);
        write(p.resolve("gid_attrs").resolve("ndevs").resolve(Integer.toString(index)), netdev);
        return this;
    }

    public SysfsFixture portAttribute(final String dev, final int port, final String name, final String value)
    {
        write(root.resolve(dev).resolve("ports").resolve(Integer.toString(port)).resolve(name), value);
        return this;
    }

    public SysfsFixture counter(final String dev, final int port, final String name, final long value)
    {
        return portAttribute(dev, port, "counters/" + name, Long.toString(value));
    }

    public SysfsFixture hwCounter(final String dev, final int port, final String name, final long value)
    {
        return portAttribute(dev, port, "hw_counters/" + name, Long.toString(value));
    }

    public static void write(final Path file, final String line)
    {
        try
        {
            Files.createDirectories(file.getParent());
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
    }
}

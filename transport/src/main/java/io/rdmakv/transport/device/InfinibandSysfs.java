package io.rdmakv.transport.device;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Reads RDMA devices and ports from {@code /sys/class/infiniband} (or any root given, for tests):
 * <pre>
 *   &lt;root&gt;/&lt;dev&gt;/node_type, fw_ver, node_guid, board_id
 *   &lt;root&gt;/&lt;dev&gt;/ports/&lt;n&gt;/state            "4: ACTIVE"
 *                          /phys_state       "5: LinkUp"
 *                          /rate             "100 Gb/sec (4X EDR)"
 *                          /link_layer       "InfiniBand" | "Ethernet"
 *                          /lid              "0x1"
 *                          /gids/&lt;i&gt;          "fe80:0000:0000:0000:...."
 *                          /gid_attrs/types/&lt;i&gt;  "IB/RoCE v1" | "RoCE v2"   (reading an unused entry fails)
 *                          /gid_attrs/ndevs/&lt;i&gt;  "eth0"
 *                          /counters/*       decimal
 *                          /hw_counters/*    decimal
 * </pre>
 * Never throws for a missing or odd file: what cannot be read is absent ({@code null}, -1) or listed as unreadable.
 */
public final class InfinibandSysfs
{
    /** Where the kernel shows RDMA devices. */
    public static final Path DEFAULT_ROOT = Path.of("/sys/class/infiniband");

    private final Path root;

    public InfinibandSysfs(final Path root)
    {
        this.root = root;
    }

    public Path root()
    {
        return root;
    }

    /** All devices under the root, by name; empty when the root does not exist (no RDMA stack loaded). */
    public List<RdmaDevice> devices()
    {
        final List<RdmaDevice> devices = new ArrayList<>();
        for (final Path dir : children(root))
        {
            final String name = dir.getFileName().toString();
            devices.add(new RdmaDevice(
                name,
                CodedState.parse(read(dir.resolve("node_type"))),
                read(dir.resolve("fw_ver")),
                read(dir.resolve("node_guid")),
                read(dir.resolve("board_id")),
                ports(dir.resolve("ports"))));
        }
        return devices;
    }

    private static List<RdmaPort> ports(final Path portsDir)
    {
        final List<RdmaPort> ports = new ArrayList<>();
        for (final Path dir : children(portsDir))
        {
            final int number = parseIntOr(dir.getFileName().toString(), -1);
            if (number < 0)
            {
                continue;
            }
            final List<String> unreadable = new ArrayList<>();
            ports.add(new RdmaPort(
                number,
                CodedState.parse(read(dir.resolve("state"))),
                CodedState.parse(read(dir.resolve("phys_state"))),
                read(dir.resolve("rate")),
                read(dir.resolve("link_layer")),
                parseLid(read(dir.resolve("lid"))),
                gids(dir),
                counters(dir.resolve("counters"), "counters", unreadable),
                counters(dir.resolve("hw_counters"), "hw_counters", unreadable),
                unreadable));
        }
        ports.sort(Comparator.comparingInt(RdmaPort::number));
        return ports;
    }

    private static List<GidEntry> gids(final Path portDir)
    {
        final Map<Integer, GidEntry> byIndex = new TreeMap<>();
        for (final Path file : children(portDir.resolve("gids")))
        {
            final int index = parseIntOr(file.getFileName().toString(), -1);
            final String gid = read(file);
            if (index < 0 || gid == null || GidEntry.isEmpty(gid))
            {
                continue;
            }
            final String idx = Integer.toString(index);
            byIndex.put(index, new GidEntry(index, gid,
                read(portDir.resolve("gid_attrs").resolve("types").resolve(idx)),
                read(portDir.resolve("gid_attrs").resolve("ndevs").resolve(idx))));
        }
        return new ArrayList<>(byIndex.values());
    }

    private static Map<String, Long> counters(final Path dir, final String label, final List<String> unreadable)
    {
        final Map<String, Long> values = new TreeMap<>();
        for (final Path file : children(dir))
        {
            if (!Files.isRegularFile(file))
            {
                continue;
            }
            final String name = file.getFileName().toString();
            final String text = read(file);
            try
            {
                // 64-bit counters are unsigned in the kernel; values past 2^63 are not expected in practice.
                values.put(name, Long.parseUnsignedLong(text == null ? "" : text));
            }
            catch (final NumberFormatException ex)
            {
                unreadable.add(label + "/" + name);
            }
        }
        return values;
    }

    private static int parseLid(final String text)
    {
        if (text == null)
        {
            return -1;
        }
        final String t = text.startsWith("0x") || text.startsWith("0X") ? text.substring(2) : text;
        try
        {
            return Integer.parseInt(t, 16);
        }
        catch (final NumberFormatException ex)
        {
            return -1;
        }
    }

    private static int parseIntOr(final String text, final int otherwise)
    {
        try
        {
            return Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            return otherwise;
        }
    }

    /** Children sorted by name; empty when the directory is missing or unreadable. */
    public static List<Path> children(final Path dir)
    {
        if (!Files.isDirectory(dir))
        {
            return List.of();
        }
        try (Stream<Path> s = Files.list(dir))
        {
            return s.sorted(Comparator.comparing(p -> p.getFileName().toString())).toList();
        }
        catch (final IOException | SecurityException ex)
        {
            return List.of();
        }
    }

    /** The trimmed first line of a small sysfs file, or {@code null} when missing or unreadable. */
    static String read(final Path file)
    {
        try
        {
            // sysfs reports size 4096 for every attribute; read the bytes rather than trusting the size.
            final String s = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
            final int nl = s.indexOf('\n');
            final String line = (nl >= 0 ? s.substring(0, nl) : s).trim();
            return line.isEmpty() ? null : line;
        }
        catch (final IOException | SecurityException ex)
        {
            // e.g. EINVAL from gid_attrs/types of an unused entry, or a counter the driver cannot read.
            return null;
        }
    }
}

package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.InfinibandSysfs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The RDMA character devices in {@code /dev/infiniband} ({@code uverbs0}, {@code rdma_cm}, {@code umad0}, ...),
 * through which user space talks to the kernel driver. Without {@code uverbsN} libibverbs sees no device even when
 * sysfs shows one (a container started without {@code --device}, or {@code ib_uverbs} not loaded).
 *
 * @param dir     the directory looked at.
 * @param present whether it exists.
 * @param entries the entry names, sorted.
 */
public record DeviceFiles(Path dir, boolean present, List<String> entries)
{
    /** Where udev creates the RDMA device files. */
    public static final Path DEFAULT_DIR = Path.of("/dev/infiniband");

    public DeviceFiles
    {
        entries = List.copyOf(entries);
    }

    /** Look at {@code dir}; never throws. */
    public static DeviceFiles scan(final Path dir)
    {
        if (!Files.isDirectory(dir))
        {
            return new DeviceFiles(dir, false, List.of());
        }
        return new DeviceFiles(dir, true,
            InfinibandSysfs.children(dir).stream().map(p -> p.getFileName().toString()).toList());
    }

    /** The {@code uverbsN} entries: one per device that verbs can open. */
    public List<String> uverbs()
    {
        return entries.stream().filter(e -> e.startsWith("uverbs")).toList();
    }

    /** Whether {@code rdma_cm} is present (needed by librdmacm, not by rdmakv's own connection setup). */
    public boolean hasRdmaCm()
    {
        return entries.contains("rdma_cm");
    }
}

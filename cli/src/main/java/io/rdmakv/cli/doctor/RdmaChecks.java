package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.RdmaDevice;
import io.rdmakv.transport.device.RdmaPort;
import io.rdmakv.transport.device.GidEntry;
import io.rdmakv.transport.device.PortCounters;
import io.rdmakv.transport.device.CodedState;
import io.rdmakv.transport.device.PortAttributes;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * Turns what was read about the RDMA stack into checks: devices, each port (state, MTU, GID table, counters),
 * {@code /dev/infiniband} and libibverbs. Pure functions of their inputs, so each verdict is tested on its own.
 * Nothing here is FAIL: without RDMA the store still works over TCP; whether the configuration as a whole cannot work
 * is decided by {@link TransportChecks}.
 */
public final class RdmaChecks
{
    static final String SOFTROCE_HINT =
        "for a test without hardware create a SoftRoCE device: `modprobe rdma_rxe && rdma link add rxe0 type rxe " +
        "netdev eth0`";

    private RdmaChecks()
    {
    }

    /** The section about devices found in sysfs. */
    public static ReportSection devices(final Path root, final List<RdmaDevice> devices)
    {
        final List<Check> checks = new ArrayList<>();
        if (devices.isEmpty())
        {
            checks.add(Check.warn("devices", "no RDMA devices in " + root + " (no HCA, or its driver is not loaded)",
                "load the HCA driver (e.g. `modprobe mlx5_ib`); " + SOFTROCE_HINT +
                "; without RDMA rdmakv runs over TCP"));
            return new ReportSection("RDMA devices", checks);
        }
        final List<String> lines = new ArrayList<>();
        int activePorts = 0;
        int ports = 0;
        for (final RdmaDevice d : devices)
        {
            lines.add(d.name() + ": node type " + d.nodeType() +
                (d.firmware() == null ? "" : ", fw " + d.firmware()) +
                (d.nodeGuid() == null ? "" : ", node GUID " + d.nodeGuid()) +
                (d.boardId() == null ? "" : ", board " + d.boardId()) +
                ", " + d.ports().size() + " port(s)");
            for (final RdmaPort p : d.ports())
            {
                ports++;
                activePorts += p.isActive() ? 1 : 0;
            }
        }
        checks.add(Check.ok("devices", devices.size() + " device(s): " +
            String.join(", ", devices.stream().map(RdmaDevice::name).toList())).withDetails(lines));
        if (activePorts == 0)
        {
            checks.add(Check.warn("active ports", "none of " + ports + " port(s) is ACTIVE",
                "see the port sections below: bring a link up (cable, switch, `ip link set <netdev> up` for RoCE) " +
                "or start a subnet manager (InfiniBand)"));
        }
        else
        {
            checks.add(Check.ok("active ports", activePorts + " of " + ports + " port(s) ACTIVE"));
        }
        return new ReportSection("RDMA devices", checks);
    }

    /**
     * The section of one port.
     *
     * @param attributes the port query of a verbs transport, or empty when none is available.
     */
    public static ReportSection port(final RdmaDevice device, final RdmaPort port,
        final Optional<PortAttributes> attributes, final boolean attributeSourcePresent)
    {
        final List<Check> checks = new ArrayList<>();
        checks.add(state(port).withDetails(queryLines(attributes, attributeSourcePresent)));
        attributes.ifPresent(a -> mtu(port, a).ifPresent(checks::add));
        checks.add(gids(port));
        checks.add(errorCounters(port));
        checks.add(hwCounters(port));
        return new ReportSection("port " + device.name() + "/" + port.number(), checks);
    }

    static Check state(final RdmaPort p)
    {
        final String facts = p.state() + ", phys " + p.physState() +
            ", " + (p.rate() == null ? "rate unknown" : p.rate()) +
            ", " + (p.linkLayer() == null ? "link layer unknown" : p.linkLayer()) +
            (p.lid() < 0 ? "" : ", LID 0x" + Integer.toHexString(p.lid()));
        if (p.isActive())
        {
            return Check.ok("state", facts);
        }
        final String fix;
        if (p.physState().code() != CodedState.PHYS_LINK_UP)
        {
            fix = "no physical link: check the cable and the switch port" +
                (p.isEthernet() ? ", and that the netdev is up (`ip link set <netdev> up`)" : "");
        }
        else if (p.state().code() == CodedState.PORT_INIT && !p.isEthernet())
        {
            fix = "the link is up but no subnet manager has configured the port: run `opensm` on one node of the " +
                "fabric (or enable the switch's SM)";
        }
        else
        {
            fix = "the port is not ACTIVE yet: wait for link training, then check `ibstat` / `rdma link`";
        }
        return Check.warn("state", "port not ACTIVE: " + facts, fix);
    }

    /**
     * What the port query adds under the sysfs state: the active MTU (sysfs lacks it), and the port as verbs sees it.
     */
    static List<String> queryLines(final Optional<PortAttributes> attributes, final boolean sourcePresent)
    {
        if (attributes.isPresent())
        {
            final PortAttributes a = attributes.get();
            return List.of("active MTU: " + a.activeMtuBytes() + " (max " + a.maxMtuBytes() + ")",
                "ibv_query_port: " + a.describe());
        }
        return List.of(sourcePresent ? "active MTU: (port query failed)" : "active MTU: (needs the verbs transport)");
    }

    static Optional<Check> mtu(final RdmaPort p, final PortAttributes a)
    {
        if (p.isEthernet() && a.activeMtuBytes() < a.maxMtuBytes() && a.activeMtuBytes() < 4096)
        {
            return Optional.of(Check.warn("MTU", "active MTU " + a.activeMtuBytes() + " below the port's " +
                a.maxMtuBytes() + ": larger values need more packets per read",
                "on RoCE the active MTU follows the netdev's: raise it (e.g. `ip link set <netdev> mtu 9000`, " +
                "and on the switch)"));
        }
        return Optional.empty();
    }

    static Check gids(final RdmaPort p)
    {
        final List<String> lines = p.gids().stream().map(GidEntry::describe).toList();
        if (p.gids().isEmpty())
        {
            return Check.warn("GID table", "no GIDs", p.isEthernet() ?
                "RoCE GIDs come from the netdev's addresses: give it an IP address (and bring it up)" :
                "an InfiniBand port gets its GID prefix from the subnet manager: check that one runs");
        }
        if (p.isEthernet() && p.gids().stream().noneMatch(GidEntry::isRoceV2))
        {
            return Check.warn("GID table", p.gids().size() + " GID(s), none RoCE v2",
                "RoCE v2 GIDs come from the netdev's IP addresses: give it an IPv4 or global IPv6 address")
                .withDetails(lines);
        }
        return Check.ok("GID table", p.gids().size() + " GID(s)" +
            (p.isEthernet() ? ", " + p.gids().stream().filter(GidEntry::isRoceV2).count() + " RoCE v2" : ""))
            .withDetails(lines);
    }

    static Check errorCounters(final RdmaPort p)
    {
        final List<String> lines = new ArrayList<>();
        for (final Map.Entry<String, Long> e : p.counters().entrySet())
        {
            if (PortCounters.TRAFFIC_COUNTERS.containsKey(e.getKey()))
            {
                lines.add(PortCounters.displayName(e.getKey()) + " = " + e.getValue());
            }
        }
        p.unreadable().stream().filter(u -> u.startsWith("counters/")).forEach(u -> lines.add(u + ": unreadable"));
        return nonZero("error counters", p.counters(), (name, v) -> PortCounters.ERROR_COUNTERS.containsKey(name),
            PortCounters::displayName,
            "counters only grow while the driver is loaded; if they grow between two runs, check cables and " +
            "transceivers (`perfquery -x`, `ibdiagnet`; on RoCE `ethtool -S <netdev>`)", lines);
    }

    static Check hwCounters(final RdmaPort p)
    {
        final List<String> lines = new ArrayList<>();
        p.unreadable().stream().filter(u -> u.startsWith("hw_counters/")).forEach(u -> lines.add(u + ": unreadable"));
        final boolean rnr = p.hwCounters().entrySet().stream()
            .anyMatch(e -> e.getValue() != 0 && PortCounters.isRnr(e.getKey()));
        final String fix = (rnr ? "RNR: a receiver had no receive posted (an overloaded or misbehaving peer; " +
            "rdmakv posts receives before RTR and bounds sends by credits); " : "") +
            "retries and timeouts mean lost packets or a peer that stopped answering: check the link, and PFC/ECN " +
            "on RoCE; counters only grow, compare two runs";
        return nonZero("hw counters", p.hwCounters(), (name, v) -> PortCounters.isHwError(name), name -> name, fix,
            lines);
    }

    private static Check nonZero(final String checkName, final Map<String, Long> counters,
        final BiFunction<String, Long, Boolean> isError, final Function<String, String> display,
        final String fix, final List<String> lines)
    {
        final List<String> bad = new ArrayList<>();
        int errorCounters = 0;
        for (final Map.Entry<String, Long> e : counters.entrySet())
        {
            if (isError.apply(e.getKey(), e.getValue()))
            {
                errorCounters++;
                if (e.getValue() != 0)
                {
                    bad.add(display.apply(e.getKey()) + "=" + e.getValue());
                }
            }
        }
        if (counters.isEmpty())
        {
            // Software devices such as rxe expose no IB PortCounters at all; that is not a fault.
            return lines.isEmpty() ? Check.ok(checkName, "none exposed by the driver") :
                Check.warn(checkName, "counters present but unreadable", "run doctor as root, or check the driver")
                    .withDetails(lines);
        }
        if (!bad.isEmpty())
        {
            return Check.warn(checkName, String.join(", ", bad), fix).withDetails(lines);
        }
        return Check.ok(checkName, "all " + errorCounters + " error counters are 0").withDetails(lines);
    }

    /** The section about {@code /dev/infiniband}. */
    public static ReportSection deviceFiles(final DeviceFiles files)
    {
        final String containerFix = "in a container pass the devices and the limit: `docker run --device " +
            "/dev/infiniband/uverbs0 --device /dev/infiniband/rdma_cm --ulimit memlock=-1:-1`";
        final Check check;
        if (!files.present())
        {
            check = Check.warn("device files", "no " + files.dir() + ": verbs cannot open any device",
                "load the user-space verbs module (`modprobe ib_uverbs`, with an RDMA device or SoftRoCE); " +
                containerFix);
        }
        else if (files.uverbs().isEmpty())
        {
            check = Check.warn("device files", files.dir() + " has no uverbs device: " + files.entries(),
                "`modprobe ib_uverbs`; " + containerFix);
        }
        else
        {
            check = Check.ok("device files", files.dir() + ": " + String.join(", ", files.entries()));
        }
        return new ReportSection("device files", List.of(check));
    }

    /** The section about libibverbs. */
    public static ReportSection libibverbs(final LibibverbsInfo lib)
    {
        final List<Check> checks = new ArrayList<>();
        final String packages = lib.packageVersions().isEmpty() ? "package version unknown (no dpkg)" :
            "packages " + String.join(", ", lib.packageVersions().entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue()).toList());
        if (!lib.found())
        {
            checks.add(Check.warn("libibverbs", LibibverbsInfo.SONAME + " not found; " + packages,
                "install rdma-core's user space: `apt-get install libibverbs1 ibverbs-providers` " +
                "(`dnf install libibverbs` on Fedora/RHEL)"));
            return new ReportSection("libibverbs", checks);
        }
        checks.add(Check.ok("libibverbs", LibibverbsInfo.SONAME + " -> " +
            (lib.realPath() == null ? lib.linkPath() : lib.realPath()) +
            (lib.fileVersion() == null ? "" : " (library " + lib.fileVersion() + ")") + "; " + packages));
        if (lib.providers().isEmpty())
        {
            checks.add(Check.warn("providers", "no provider drivers beside " + lib.linkPath() +
                ": libibverbs will list no device", "`apt-get install ibverbs-providers`"));
        }
        else
        {
            checks.add(Check.ok("providers", String.join(" ", lib.providers()) +
                (lib.providers().contains("rxe") ? "" : " (no rxe: SoftRoCE needs ibverbs-providers' librxe)")));
        }
        return new ReportSection("libibverbs", checks);
    }
}

package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.InfinibandSysfs;
import io.rdmakv.transport.device.RdmaDevice;
import io.rdmakv.transport.device.RdmaPort;
import io.rdmakv.transport.device.PortAttributes;
import io.rdmakv.transport.device.SysfsFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class RdmaChecksTest
{
    @TempDir
    Path tmp;

    private RdmaPort port(final SysfsFixture f)
    {
        return new InfinibandSysfs(f.root()).devices().get(0).ports().get(0);
    }

    private static Check named(final ReportSection s, final String name)
    {
        return s.checks().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    @Test
    void shouldPassAHealthyInfinibandPort()
    {
        final SysfsFixture f = new SysfsFixture(tmp).infinibandDevice("mlx5_0");
        final RdmaDevice d = new InfinibandSysfs(f.root()).devices().get(0);
        final ReportSection s = RdmaChecks.port(d, d.ports().get(0), Optional.empty(), false);

        assertEquals("port mlx5_0/1", s.title());
        assertEquals(Severity.OK, s.severity(), s::toString);
        final Check state = named(s, "state");
        assertTrue(state.message().contains("ACTIVE (4)") && state.message().contains("LinkUp (5)") &&
            state.message().contains("100 Gb/sec (4X EDR)") && state.message().contains("LID 0x1"), state.message());
        assertEquals(List.of("active MTU: (needs the verbs transport)"), state.details());
        assertEquals("all 12 error counters are 0", named(s, "error counters").message());
        assertTrue(named(s, "error counters").details().contains("PortXmitData = 123456789"));
        assertEquals("all 2 error counters are 0", named(s, "hw counters").message());
    }

    @Test
    void shouldTellToStartASubnetManagerForAnInfinibandPortInInit()
    {
        final SysfsFixture f = new SysfsFixture(tmp).infinibandDevice("mlx5_0")
            .portAttribute("mlx5_0", 1, "state", "2: INIT");
        final Check c = RdmaChecks.state(port(f));

        assertEquals(Severity.WARN, c.severity());
        assertTrue(c.message().startsWith("port not ACTIVE: INIT (2)"), c.message());
        assertTrue(c.fix().contains("opensm"), c.fix());
    }

    @Test
    void shouldTellToCheckTheCableWhenThereIsNoPhysicalLink()
    {
        final SysfsFixture f = new SysfsFixture(tmp).softRoceDevice("rxe0")
            .portAttribute("rxe0", 1, "state", "1: DOWN")
            .portAttribute("rxe0", 1, "phys_state", "3: Disabled");
        final Check c = RdmaChecks.state(port(f));

        assertEquals(Severity.WARN, c.severity());
        assertTrue(c.fix().contains("cable") && c.fix().contains("ip link set"), c.fix());
    }

    @Test
    void shouldWarnAboutARocePortWithoutRoceV2Gid()
    {
        final SysfsFixture f = new SysfsFixture(tmp).softRoceDevice("rxe0");
        final RdmaPort healthy = port(f);
        assertEquals(Severity.OK, RdmaChecks.gids(healthy).severity());
        assertEquals("4 GID(s), 2 RoCE v2", RdmaChecks.gids(healthy).message());
        assertTrue(RdmaChecks.gids(healthy).details().contains(
            "GID[3] 0000:0000:0000:0000:0000:ffff:0a00:0002  RoCE v2  eth0"));

        final RdmaPort v1Only = new RdmaPort(1, healthy.state(), healthy.physState(), healthy.rate(),
            healthy.linkLayer(), 0, healthy.gids().stream().filter(g -> !g.isRoceV2()).toList(), Map.of(), Map.of(),
            List.of());
        final Check c = RdmaChecks.gids(v1Only);
        assertEquals(Severity.WARN, c.severity());
        assertTrue(c.fix().contains("IP address"), c.fix());
    }

    @Test
    void shouldWarnWithPerfqueryNamesWhenErrorCountersAreNotZero()
    {
        final SysfsFixture f = new SysfsFixture(tmp).infinibandDevice("mlx5_0")
            .counter("mlx5_0", 1, "symbol_error", 7)
            .counter("mlx5_0", 1, "port_xmit_discards", 2)
            .counter("mlx5_0", 1, "link_downed", 1);
        final Check c = RdmaChecks.errorCounters(port(f));

        assertEquals(Severity.WARN, c.severity());
        assertEquals("LinkDownedCounter=1, PortXmitDiscards=2, SymbolErrorCounter=7", c.message());
        assertTrue(c.fix().contains("perfquery"), c.fix());
    }

    @Test
    void shouldWarnAboutRnrAndRetryHardwareCountersButNotTraffic()
    {
        final SysfsFixture f = new SysfsFixture(tmp).softRoceDevice("rxe0")
            .hwCounter("rxe0", 1, "rcvd_pkts", 1_000_000)
            .hwCounter("rxe0", 1, "lifespan", 10);
        assertEquals(Severity.OK, RdmaChecks.hwCounters(port(f)).severity());

        f.hwCounter("rxe0", 1, "rcvd_rnr_err", 3).hwCounter("rxe0", 1, "retry_exceeded_err", 1);
        final Check c = RdmaChecks.hwCounters(port(f));
        assertEquals(Severity.WARN, c.severity());
        assertEquals("rcvd_rnr_err=3, retry_exceeded_err=1", c.message());
        assertTrue(c.fix().startsWith("RNR:"), c.fix());

        f.hwCounter("rxe0", 1, "rcvd_rnr_err", 0);
        assertTrue(RdmaChecks.hwCounters(port(f)).fix().startsWith("retries"));
    }

    @Test
    void shouldWarnWhenThereAreNoDevicesOrNoActivePort()
    {
        final ReportSection none = RdmaChecks.devices(tmp, List.of());
        assertEquals(Severity.WARN, none.severity());
        assertTrue(none.checks().get(0).message().startsWith("no RDMA devices in " + tmp));
        assertTrue(none.checks().get(0).fix().contains("rdma link add rxe0 type rxe"));

        final SysfsFixture f = new SysfsFixture(tmp).softRoceDevice("rxe0")
            .portAttribute("rxe0", 1, "state", "1: DOWN");
        final ReportSection down = RdmaChecks.devices(tmp, new InfinibandSysfs(f.root()).devices());
        assertEquals(Severity.OK, named(down, "devices").severity());
        assertEquals("none of 1 port(s) is ACTIVE", named(down, "active ports").message());
        assertEquals(Severity.WARN, named(down, "active ports").severity());
    }

    @Test
    void shouldShowTheActiveMtuFromAPortQueryAndWarnWhenRoceRunsBelowItsMaximum()
    {
        final SysfsFixture f = new SysfsFixture(tmp).softRoceDevice("rxe0");
        final RdmaDevice d = new InfinibandSysfs(f.root()).devices().get(0);

        final ReportSection full = RdmaChecks.port(d, d.ports().get(0), Optional.of(
            new PortAttributes("ACTIVE", 4096, 4096, "1X", "2.5 Gbps", "Ethernet", 0)), true);
        assertEquals(List.of("active MTU: 4096 (max 4096)", "ibv_query_port: ACTIVE, 1X 2.5 Gbps, Ethernet, LID 0x0"),
            named(full, "state").details());
        assertEquals(Severity.OK, full.severity());

        final ReportSection small = RdmaChecks.port(d, d.ports().get(0), Optional.of(
            new PortAttributes("ACTIVE", 1024, 4096, "1X", "2.5 Gbps", "Ethernet", 0)), true);
        assertEquals(Severity.WARN, named(small, "MTU").severity());
        assertTrue(named(small, "MTU").fix().contains("mtu 9000"));

        final ReportSection failed = RdmaChecks.port(d, d.ports().get(0), Optional.empty(), true);
        assertEquals(List.of("active MTU: (port query failed)"), named(failed, "state").details());
    }

    @Test
    void shouldWarnWithoutDevInfinibandAndPassWithUverbs()
    {
        final Check missing = RdmaChecks.deviceFiles(DeviceFiles.scan(Path.of("/nonexistent/dev/infiniband")))
            .checks().get(0);
        assertEquals(Severity.WARN, missing.severity());
        assertTrue(missing.message().startsWith("no /nonexistent/dev/infiniband"), missing.message());
        assertTrue(missing.fix().contains("modprobe ib_uverbs") && missing.fix().contains("--device"));

        final Check noUverbs = RdmaChecks.deviceFiles(new DeviceFiles(tmp, true, List.of("rdma_cm"))).checks().get(0);
        assertEquals(Severity.WARN, noUverbs.severity());

        final Check ok = RdmaChecks.deviceFiles(new DeviceFiles(tmp, true, List.of("rdma_cm", "uverbs0")))
            .checks().get(0);
        assertEquals(Severity.OK, ok.severity());
        assertNull(ok.fix());
    }

    @Test
    void shouldReportTheLibraryVersionOrHowToInstallIt()
    {
        final LibibverbsInfo found = new LibibverbsInfo(Path.of("/lib/libibverbs.so.1"),
            Path.of("/lib/libibverbs.so.1.14.44.0"), List.of("mlx5", "rxe"), Map.of("libibverbs1", "44.0-2"));
        final ReportSection ok = RdmaChecks.libibverbs(found);
        assertEquals(Severity.OK, ok.severity());
        assertEquals("libibverbs.so.1 -> /lib/libibverbs.so.1.14.44.0 (library 1.14.44.0); packages libibverbs1 44.0-2",
            ok.checks().get(0).message());

        final ReportSection noDrivers = RdmaChecks.libibverbs(new LibibverbsInfo(Path.of("/lib/libibverbs.so.1"),
            null, List.of(), Map.of()));
        assertEquals(Severity.WARN, named(noDrivers, "providers").severity());

        final ReportSection missing = RdmaChecks.libibverbs(new LibibverbsInfo(null, null, List.of(), Map.of()));
        assertEquals(Severity.WARN, missing.severity());
        assertTrue(missing.checks().get(0).fix().contains("apt-get install libibverbs1 ibverbs-providers"));
    }
}

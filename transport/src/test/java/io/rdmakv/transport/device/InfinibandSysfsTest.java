package io.rdmakv.transport.device;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class InfinibandSysfsTest
{
    @TempDir
    Path tmp;

    @Test
    void shouldReadAnInfinibandDeviceAndItsPort()
    {
        final SysfsFixture f = new SysfsFixture(tmp).infinibandDevice("mlx5_0");
        final List<RdmaDevice> devices = new InfinibandSysfs(f.root()).devices();

        assertEquals(1, devices.size());
        final RdmaDevice d = devices.get(0);
        assertEquals("mlx5_0", d.name());
        assertEquals(new CodedState(1, "CA"), d.nodeType());
        assertEquals("16.35.2000", d.firmware());
        assertEquals("b859:9f03:00d4:1a2e", d.nodeGuid());
        assertEquals("MT_0000000010", d.boardId());
        assertEquals(1, d.ports().size());

        final RdmaPort p = d.ports().get(0);
        assertEquals(1, p.number());
        assertEquals(new CodedState(4, "ACTIVE"), p.state());
        assertEquals(new CodedState(5, "LinkUp"), p.physState());
        assertTrue(p.isActive());
        assertEquals("100 Gb/sec (4X EDR)", p.rate());
        assertEquals("InfiniBand", p.linkLayer());
        assertFalse(p.isEthernet());
        assertEquals(1, p.lid());
        // The all-zero entry 1 is an unused slot, not a GID.
        assertEquals(List.of(new GidEntry(0, "fe80:0000:0000:0000:b859:9f03:00d4:1a2e", null, null)), p.gids());
        assertEquals(0L, p.counters().get("symbol_error"));
        assertEquals(123456789L, p.counters().get("port_xmit_data"));
        assertEquals(42L, p.hwCounters().get("rx_read_requests"));
        assertTrue(p.unreadable().isEmpty());
    }

    @Test
    void shouldReadRoceGidTypesAndNetdevsAndSkipUnusedEntries()
    {
        final SysfsFixture f = new SysfsFixture(tmp).softRoceDevice("rxe0");
        final RdmaPort p = new InfinibandSysfs(f.root()).devices().get(0).ports().get(0);

        assertTrue(p.isEthernet());
        assertEquals(0, p.lid());
        assertEquals(4, p.gids().size());
        final GidEntry v2 = p.gids().get(3);
        assertEquals(3, v2.index());
        assertEquals("0000:0000:0000:0000:0000:ffff:0a00:0002", v2.gid());
        assertEquals("RoCE v2", v2.type());
        assertEquals("eth0", v2.netdev());
        assertTrue(v2.isRoceV2());
        assertFalse(p.gids().get(0).isRoceV2());
        assertEquals("IB/RoCE v1", p.gids().get(0).type());
        assertTrue(p.counters().isEmpty());
        assertEquals(10L, p.hwCounters().get("lifespan"));
    }

    @Test
    void shouldGiveNoDevicesWhenTheRootIsMissing()
    {
        assertTrue(new InfinibandSysfs(tmp.resolve("no-such-dir")).devices().isEmpty());
    }

    @Test
    void shouldSortPortsNumericallyAndIgnoreOddEntries()
    {
        final SysfsFixture f = new SysfsFixture(tmp);
        for (final String port : new String[] {"10", "2", "1"})
        {
            SysfsFixture.write(tmp.resolve("hfi1_0/ports").resolve(port).resolve("state"), "1: DOWN");
        }
        SysfsFixture.write(tmp.resolve("hfi1_0/ports/not-a-port/state"), "4: ACTIVE");
        final List<RdmaPort> ports = new InfinibandSysfs(f.root()).devices().get(0).ports();

        assertEquals(List.of(1, 2, 10), ports.stream().map(RdmaPort::number).toList());
        assertEquals(new CodedState(1, "DOWN"), ports.get(0).state());
    }

    @Test
    void shouldReportMissingAndMalformedFilesWithoutThrowing()
    {
        final SysfsFixture f = new SysfsFixture(tmp)
            .portAttribute("bad0", 1, "state", "ACTIVE-ish")
            .portAttribute("bad0", 1, "lid", "zz")
            .portAttribute("bad0", 1, "counters/symbol_error", "n/a")
            .counter("bad0", 1, "port_rcv_errors", 3)
            .portAttribute("bad0", 1, "hw_counters/rnr_nak_retry_err", "-5");
        final RdmaDevice d = new InfinibandSysfs(f.root()).devices().get(0);
        final RdmaPort p = d.ports().get(0);

        assertEquals(CodedState.UNKNOWN_CODE, d.nodeType().code());
        assertNull(d.firmware());
        assertEquals(new CodedState(CodedState.UNKNOWN_CODE, "ACTIVE-ish"), p.state());
        assertFalse(p.isActive());
        assertEquals(new CodedState(CodedState.UNKNOWN_CODE, "(unreadable)"), p.physState());
        assertNull(p.rate());
        assertNull(p.linkLayer());
        assertEquals(-1, p.lid());
        assertEquals(3L, p.counters().get("port_rcv_errors"));
        assertFalse(p.counters().containsKey("symbol_error"));
        assertEquals(List.of("counters/symbol_error", "hw_counters/rnr_nak_retry_err"), p.unreadable());
    }

    @Test
    void shouldParseCodedStates()
    {
        assertEquals(new CodedState(4, "ACTIVE"), CodedState.parse("4: ACTIVE\n"));
        assertEquals(new CodedState(5, "LinkUp"), CodedState.parse("5: LinkUp"));
        assertEquals(new CodedState(3, "Disabled"), CodedState.parse(" 3:Disabled "));
        assertEquals(new CodedState(CodedState.UNKNOWN_CODE, "x: y"), CodedState.parse("x: y"));
        assertEquals(new CodedState(CodedState.UNKNOWN_CODE, "(unreadable)"), CodedState.parse(null));
        assertEquals("ACTIVE (4)", CodedState.parse("4: ACTIVE").toString());
    }
}

package io.rdmakv.cli.doctor;

import io.rdmakv.transport.device.InfinibandSysfs;
import io.rdmakv.transport.device.PortAttributes;
import io.rdmakv.transport.device.PortAttributesSource;
import io.rdmakv.transport.device.SysfsFixture;
import io.rdmakv.transport.select.TransportSelector;
import io.rdmakv.transport.tcp.TcpTransportProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransportDoctorTest
{
    @TempDir
    Path tmp;

    private static final PortAttributes RXE_PORT =
        new PortAttributes("ACTIVE", 1024, 4096, "1X", "2.5 Gbps", "Ethernet", 0);

    /** A verbs-like provider that answers port queries, as the verbs transport does through the hook. */
    private static final class QueryingProvider extends FakeProvider implements PortAttributesSource
    {
        QueryingProvider()
        {
            super("verbs", true, null, FakeProvider.verbsLike(true, null).capabilities());
        }

        @Override
        public Optional<PortAttributes> portAttributes(final String device, final int port)
        {
            return device.equals("rxe0") && port == 1 ? Optional.of(RXE_PORT) : Optional.empty();
        }
    }

    private TransportDoctor doctor(final TransportSelector selector, final String requested) throws Exception
    {
        final SysfsFixture f = new SysfsFixture(tmp.resolve("sys")).softRoceDevice("rxe0").infinibandDevice("mlx5_0");
        Files.createDirectories(tmp.resolve("dev/infiniband"));
        Files.writeString(tmp.resolve("dev/infiniband/uverbs0"), "");
        final LibibverbsLocator lib = new LibibverbsLocator(List.of(tmp.resolve("lib")), command -> Optional.empty());
        return new TransportDoctor(new InfinibandSysfs(f.root()), tmp.resolve("dev/infiniband"), lib, selector,
            requested);
    }

    @Test
    void shouldBuildSectionsForEveryPortAndTakeTheMtuFromTheHook() throws Exception
    {
        final DoctorReport r = doctor(new TransportSelector(List.of(new TcpTransportProvider(),
            new QueryingProvider())), "auto").examine();

        assertEquals(List.of("RDMA devices", "port mlx5_0/1", "port rxe0/1", "device files", "libibverbs",
            "transport selection"), r.sections().stream().map(ReportSection::title).toList());
        assertEquals(1, r.portAttributes().size());
        assertEquals(RXE_PORT, r.portAttributes().get("rxe0/1"));
        final ReportSection rxe = r.sections().get(2);
        assertEquals(List.of("active MTU: 1024 (max 4096)", "ibv_query_port: ACTIVE, 1X 2.5 Gbps, Ethernet, LID 0x0"),
            rxe.checks().get(0).details());
        assertTrue(rxe.checks().stream().anyMatch(c -> c.name().equals("MTU") && c.severity() == Severity.WARN));
        assertEquals(List.of("active MTU: (port query failed)"), r.sections().get(1).checks().get(0).details());
        assertTrue(r.sections().get(5).checks().get(1).message().startsWith("auto -> verbs"));
        // No libibverbs in the fixture: a warning, not a failure.
        assertEquals(Severity.WARN, r.verdict());
        assertEquals(DoctorReport.EXIT_OK, r.exitCode());
    }

    @Test
    void shouldSayTheMtuNeedsTheVerbsTransportWhenNoProviderCanQueryPorts() throws Exception
    {
        final DoctorReport r = doctor(new TransportSelector(List.of(new TcpTransportProvider(),
            FakeProvider.verbsLike(false, "libibverbs.so.1 not found"))), "verbs").examine();

        assertTrue(r.portAttributes().isEmpty());
        assertEquals(List.of("active MTU: (needs the verbs transport)"), r.sections().get(2).checks().get(0).details());
        assertEquals(Severity.FAIL, r.verdict());
        assertEquals(DoctorReport.EXIT_CANNOT_WORK, r.exitCode());
        assertTrue(ReportText.render(r).contains(
            "  FAIL transport selection: requested: transport 'verbs' was requested but is not usable: " +
            "libibverbs.so.1 not found"), ReportText.render(r));
    }
}

package io.rdmakv.cli.doctor;

import io.rdmakv.transport.select.TransportSelector;
import io.rdmakv.transport.tcp.TcpTransportProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransportChecksTest
{
    private static final String NO_DEVICE = "no RDMA device: ibv_get_device_list returned 0 devices";

    private final FakeProvider verbsMissing = FakeProvider.verbsLike(false, NO_DEVICE);
    private final FakeProvider verbsPresent = FakeProvider.verbsLike(true, null);
    private final TcpTransportProvider tcp = new TcpTransportProvider();

    @AfterEach
    void clearProperty()
    {
        System.clearProperty("rdmakv.transport.tcp.disabled");
    }

    private static Check named(final ReportSection s, final String name)
    {
        return s.checks().stream().filter(c -> c.name().equals(name)).findFirst().orElseThrow();
    }

    private static DoctorReport report(final ReportSection s)
    {
        return new DoctorReport(List.of(s), List.of(), java.util.Map.of());
    }

    @Test
    void shouldWarnWithVerbsCauseWhenAutoFallsBackToTcp()
    {
        final ReportSection s = TransportChecks.evaluate(new TransportSelector(List.of(tcp, verbsMissing)), "auto");
        final Check auto = named(s, "auto");

        assertEquals(Severity.WARN, auto.severity());
        assertTrue(auto.message().startsWith("auto -> tcp (best available (one-sided read emulated))"), auto.message());
        assertTrue(auto.message().contains("verbs: " + NO_DEVICE), auto.message());
        assertTrue(auto.fix().contains("/dev/infiniband/uverbs"), auto.fix());
        assertTrue(auto.details().isEmpty(), "the rejections are in the message, not repeated");
        assertEquals(DoctorReport.EXIT_OK, report(s).exitCode());
    }

    @Test
    void shouldPassWhenAutoPicksVerbs()
    {
        final ReportSection s = TransportChecks.evaluate(new TransportSelector(List.of(tcp, verbsPresent)), null);

        assertEquals(Severity.OK, s.severity(), s::toString);
        assertTrue(named(s, "auto").message().startsWith("auto -> verbs (best available, with native one-sided read)"));
        assertEquals(List.of("rejected tcp: scored lower than verbs"), named(s, "auto").details());
        assertEquals(2, s.checks().size(), "no 'requested' check for auto");
    }

    @Test
    void shouldFailWithTheFixWhenVerbsIsRequestedButUnusable()
    {
        final ReportSection s = TransportChecks.evaluate(new TransportSelector(List.of(tcp, verbsMissing)), "VERBS");
        final Check requested = named(s, "requested");

        assertEquals(Severity.FAIL, requested.severity());
        assertEquals("transport 'verbs' was requested but is not usable: " + NO_DEVICE, requested.message());
        assertTrue(requested.fix().contains("transport=auto"), requested.fix());
        assertEquals(Severity.WARN, named(s, "auto").severity());
        assertEquals(DoctorReport.EXIT_CANNOT_WORK, report(s).exitCode());
    }

    @Test
    void shouldPassAnExplicitTcpRequest()
    {
        final ReportSection s = TransportChecks.evaluate(new TransportSelector(List.of(tcp, verbsMissing)), "tcp");

        assertEquals(Severity.OK, named(s, "requested").severity());
        assertEquals("transport=tcp is usable", named(s, "requested").message());
        assertEquals(DoctorReport.EXIT_OK, report(s).exitCode());
    }

    @Test
    void shouldFailAnUnknownTransportNamingTheKnownOnes()
    {
        final ReportSection s = TransportChecks.evaluate(new TransportSelector(List.of(tcp, verbsMissing)), "ucx");
        final Check requested = named(s, "requested");

        assertEquals(Severity.FAIL, requested.severity());
        assertTrue(requested.message().startsWith("unknown transport 'ucx'"), requested.message());
        assertEquals("set transport to auto or one of [tcp, verbs]", requested.fix());
    }

    @Test
    void shouldFailWhenNoTransportIsUsable()
    {
        System.setProperty("rdmakv.transport.tcp.disabled", "true");
        final ReportSection s = TransportChecks.evaluate(new TransportSelector(List.of(tcp, verbsMissing)), "auto");
        final Check auto = named(s, "auto");

        assertEquals(Severity.FAIL, auto.severity());
        assertTrue(auto.message().startsWith("no usable transport"), auto.message());
        assertTrue(named(s, "providers").details().contains(
            "tcp: unavailable: disabled by -Drdmakv.transport.tcp.disabled=true; " +
                "[SEND_RECV, READ_EMULATED, CALLER_LANES]"),
            () -> named(s, "providers").details().toString());
        assertEquals(DoctorReport.EXIT_CANNOT_WORK, report(s).exitCode());
    }

    @Test
    void shouldSayWhenNoVerbsTransportIsOnTheClassPath()
    {
        final Check auto = named(TransportChecks.evaluate(new TransportSelector(List.of(tcp)), "auto"), "auto");

        assertEquals(Severity.WARN, auto.severity());
        assertTrue(auto.message().endsWith("no verbs transport on the class path"), auto.message());
    }
}

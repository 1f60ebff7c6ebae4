package io.rdmakv.transport.select;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TransportSelectorTest
{
    private static final String DISABLED = "rdmakv.transport.fastnic.disabled";

    /** A provider described entirely by its constructor arguments; it cannot be opened. */
    private record FakeProvider(String name, boolean available, String cause, TransportCapabilities capabilities)
        implements TransportProvider
    {
        @Override
        public boolean isAvailable()
        {
            return available;
        }

        @Override
        public String unavailabilityCause()
        {
            return available ? null : cause;
        }

        @Override
        public Transport open(final TransportConfig config)
        {
            throw new TransportException("not openable in this test");
        }
    }

    private static TransportCapabilities caps(final double latency, final TransportCapability... flags)
    {
        return new TransportCapabilities(EnumSet.copyOf(List.of(flags)), 4096, 4096, 16, latency, 1e9);
    }

    private final FakeProvider nativeNic = new FakeProvider("fastnic", true, null,
        caps(50_000, TransportCapability.SEND_RECV, TransportCapability.READ_NATIVE));
    private final FakeProvider emulated = new FakeProvider("socket", true, null,
        caps(1_000, TransportCapability.SEND_RECV, TransportCapability.READ_EMULATED));
    private final FakeProvider missingDevice = new FakeProvider("nodev", false, "no RDMA device found",
        caps(100, TransportCapability.SEND_RECV, TransportCapability.READ_NATIVE));
    private final FakeProvider sendOnly = new FakeProvider("sendonly", true, null,
        caps(10, TransportCapability.SEND_RECV));

    @AfterEach
    void clearProperty()
    {
        System.clearProperty(DISABLED);
    }

    @Test
    void shouldPickNativeReadOverAFasterEmulatedOneAndSayWhyOthersLost()
    {
        final TransportSelector.Selection s =
            new TransportSelector(List.of(emulated, missingDevice, nativeNic, sendOnly)).evaluate("auto");
        assertEquals("fastnic", s.provider().name());
        assertTrue(s.reason().contains("native"));
        assertTrue(s.rejected().stream().anyMatch(r -> r.startsWith("nodev: no RDMA device found")), s::summary);
        assertTrue(s.rejected().stream().anyMatch(r -> r.startsWith("sendonly: lacks")), s::summary);
        assertTrue(s.rejected().stream().anyMatch(r -> r.startsWith("socket: scored lower")), s::summary);
    }

    @Test
    void shouldThrowWithTheCauseWhenANamedTransportIsUnavailable()
    {
        final TransportException e = assertThrows(TransportException.class,
            () -> new TransportSelector(List.of(emulated, missingDevice)).select("nodev"));
        assertTrue(e.getMessage().contains("no RDMA device found"), e.getMessage());
    }

    @Test
    void shouldThrowForAnUnknownName()
    {
        final TransportException e = assertThrows(TransportException.class,
            () -> new TransportSelector(List.of(emulated)).select("carrier-pigeon"));
        assertTrue(e.getMessage().contains("socket"), e.getMessage());
    }

    @Test
    void shouldHonourTheDisabledProperty()
    {
        System.setProperty(DISABLED, "true");
        final TransportSelector selector = new TransportSelector(List.of(emulated, nativeNic));
        final TransportSelector.Selection s = selector.evaluate("auto");
        assertEquals("socket", s.provider().name());
        assertTrue(s.rejected().stream().anyMatch(r -> r.contains("disabled by -D" + DISABLED)), s::summary);
        final TransportException e = assertThrows(TransportException.class, () -> selector.evaluate("fastnic"));
        assertTrue(e.getMessage().contains("disabled"), e.getMessage());
    }

    @Test
    void shouldFailWhenNothingIsUsable()
    {
        assertThrows(TransportException.class,
            () -> new TransportSelector(List.of(missingDevice, sendOnly)).evaluate("auto"));
    }

    @Test
    void shouldFindTheTcpTransportOnTheClassPath()
    {
        final TransportSelector selector = TransportSelector.fromClassPath();
        assertTrue(selector.providers().stream().anyMatch(p -> p.name().equals("tcp")));
        assertEquals("tcp", selector.evaluate("tcp").provider().name());
    }
}

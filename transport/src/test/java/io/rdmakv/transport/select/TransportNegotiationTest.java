package io.rdmakv.transport.select;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client's choice against what a node serves: the best both have, host-local only on the same host. */
class TransportNegotiationTest
{
    private record Fake(String name, boolean isAvailable, TransportCapabilities capabilities)
        implements TransportProvider
    {
        @Override
        public String unavailabilityCause()
        {
            return isAvailable ? null : "no RDMA device found";
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

    private static final Fake TCP = new Fake("tcp", true,
        caps(30_000, TransportCapability.SEND_RECV, TransportCapability.READ_EMULATED));
    private static final Fake VERBS = new Fake("verbs", true,
        caps(3_000, TransportCapability.SEND_RECV, TransportCapability.READ_NATIVE));
    private static final Fake SHM = new Fake("shm", true, caps(500, TransportCapability.SEND_RECV,
        TransportCapability.READ_NATIVE, TransportCapability.HOST_LOCAL));

    private final TransportSelector selector = new TransportSelector(List.of(SHM, TCP, VERBS));

    @Test
    void shouldOfferEveryUsableTransportBestFirst()
    {
        assertEquals(List.of("shm", "verbs", "tcp"), selector.usable("auto"));
        assertEquals(List.of("tcp"), selector.usable("tcp"));
        assertEquals(List.of("shm", "tcp"), new TransportSelector(List.of(SHM, TCP,
            new Fake("verbs", false, VERBS.capabilities()))).usable("auto"));
    }

    @Test
    void shouldPickSharedMemoryOnlyOnTheSameHost()
    {
        final TransportSelector.Selection local = selector.negotiate("auto", List.of("tcp", "shm"), name -> true);
        assertEquals("shm", local.provider().name());
        assertTrue(local.reason().contains("same host"), local.reason());

        final TransportSelector.Selection remote = selector.negotiate("auto", List.of("tcp", "shm"), name -> false);
        assertEquals("tcp", remote.provider().name());
        assertTrue(remote.summary().contains("shm: the node is not on this host"), remote.summary());
        assertTrue(remote.summary().contains("verbs: the node does not serve it"), remote.summary());
    }

    @Test
    void shouldUseVerbsWhenBothHaveItAndTcpAgainstATcpOnlyNode()
    {
        assertEquals("verbs", selector.negotiate("auto", List.of("verbs", "tcp"), name -> false).provider().name());
        // An RDMA client against a TCP-only node: no longer a failure.
        assertEquals("tcp", selector.negotiate("auto", List.of("tcp"), name -> true).provider().name());
    }

    @Test
    void shouldKeepARequestedTransportEvenOnTheSameHost()
    {
        final TransportSelector.Selection forced = selector.negotiate("tcp", List.of("tcp", "shm"), name -> true);
        assertEquals("tcp", forced.provider().name());
        assertTrue(forced.reason().startsWith("requested by configuration"), forced.reason());
    }

    @Test
    void shouldSayWhyWhenNothingIsShared()
    {
        final TransportException ex = assertThrows(TransportException.class,
            () -> new TransportSelector(List.of(TCP)).negotiate("auto", List.of("verbs"), name -> true));
        assertTrue(ex.getMessage().contains("tcp: the node does not serve it"), ex.getMessage());
    }

    @Test
    void shouldTellThisHostByBootIdAndNetworkNamespace(@org.junit.jupiter.api.io.TempDir final Path dir)
        throws Exception
    {
        assertTrue(HostIdentity.isThisHost(HostIdentity.current()), HostIdentity.current());
        assertTrue(HostIdentity.current().contains(":net:["), HostIdentity.current());
        assertFalse(HostIdentity.isThisHost(""));
        final Path bootId = Files.writeString(dir.resolve("boot_id"), "another-boot\n");
        final Path ns = Files.createSymbolicLink(dir.resolve("net"), Path.of("net:[1]"));
        assertEquals("another-boot:net:[1]", HostIdentity.read(bootId, ns));
        assertFalse(HostIdentity.isThisHost(HostIdentity.read(bootId, ns)));
        assertEquals("", HostIdentity.read(dir.resolve("absent"), ns));
    }
}

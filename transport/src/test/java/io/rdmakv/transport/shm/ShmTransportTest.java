package io.rdmakv.transport.shm;

import io.rdmakv.transport.MemoryAccess;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.libc.LibCLayout;
import io.rdmakv.transport.select.TransportSelector;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the shm transport promises beyond the conformance suites: the peer's memory is mapped read-only (the kernel
 * refuses a write), a wrong token gets no descriptor at all, only shareable memory registers, and {@code auto}
 * never picks it. Both workers are driven by the test thread ({@link ShmPair}), so every step is deterministic.
 */
class ShmTransportTest
{
    private final ShmPair pair = new ShmPair();
    private Transport serverTransport;
    private MemoryRegion region;

    @BeforeEach
    void connect() throws Exception
    {
        final ShmTransportProvider provider = new ShmTransportProvider();
        assumeTrue(provider.isAvailable(), () -> "shm unavailable: " + provider.unavailabilityCause());
        pair.open();
        serverTransport = pair.serverTransport;
        region = pair.region;
    }

    @AfterEach
    void close()
    {
        pair.close();
    }

    @Test
    @Timeout(30)
    void shouldMapThePeersRegionReadOnlySoTheKernelRefusesAnyWrite() throws Exception
    {
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
        assertEquals(TransportStatus.OK, pair.readStatus(region.remoteKey(), 8, dst));
        assertEquals(0x5ec2e7L, dst.getLong(0));
        // Both transports live in this process, so the client's mapping is the second one of the region's file.
        final List<String> mappings = mappingsOf("/memfd:rdmakv-test-secret");
        assertEquals(2, mappings.size(), "the owner's mapping and the reader's: " + mappings);
        assertTrue(mappings.stream().anyMatch(m -> m.split("\\s+")[1].equals("r--s")),
            "the reader maps the region read-only and shared: " + mappings);
        // The descriptor the reader got is read-only: it cannot even be mapped writable, so no store can reach it.
        final int fd = readerFd();
        assertEquals(LibCLayout.MAP_FAILED, LibC.mmap(0, 4096, LibCLayout.PROT_READ | LibCLayout.PROT_WRITE,
            LibCLayout.MAP_SHARED, fd, 0), "a writable mapping of the reader's descriptor must be refused");
        assertEquals(13, LibC.errno(), "EACCES");
    }

    @Test
    @Timeout(30)
    void shouldGiveNoDescriptorForAWrongToken() throws Exception
    {
        final RemoteKey good = region.remoteKey();
        final RemoteKey forged = new RemoteKey(good.transportId(), good.nativeKey(), good.baseAddress(), good.length(),
            good.token() ^ 1);
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
        assertEquals(TransportStatus.INVALID_RKEY, pair.readStatus(forged, 8, dst));
        assertEquals(0, dst.getLong(0));
        assertEquals(1, mappingsOf("/memfd:rdmakv-test-secret").size(), "only the owner maps the region");
    }

    @Test
    @Timeout(30)
    void shouldRefuseReadsOnceTheRegionIsDeregistered() throws Exception
    {
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(8));
        assertEquals(TransportStatus.OK, pair.readStatus(region.remoteKey(), 8, dst));
        region.close();
        assertEquals(TransportStatus.INVALID_RKEY, pair.readStatus(region.remoteKey(), 8, dst));
    }

    @Test
    void shouldRefuseToRegisterMemoryAnotherProcessCannotMap()
    {
        final UnsafeBuffer anonymous = new UnsafeBuffer(ByteBuffer.allocateDirect(4096));
        final TransportException e = assertThrows(TransportException.class, () -> serverTransport.memoryDomain()
            .register(anonymous.addressOffset(), 4096, EnumSet.of(MemoryAccess.REMOTE_READ)));
        assertTrue(e.getMessage().contains("memory file"), e.getMessage());
        // Local use (a read destination) needs no sharing.
        serverTransport.memoryDomain().register(anonymous.addressOffset(), 4096, EnumSet.of(MemoryAccess.LOCAL_WRITE))
            .close();
    }

    @Test
    void shouldNeverBePickedByAutoSelection()
    {
        final TransportSelector.Selection selection = new TransportSelector(
            List.of(new ShmTransportProvider(), new io.rdmakv.transport.tcp.TcpTransportProvider())).evaluate("auto");
        assertEquals("tcp", selection.provider().name());
        assertTrue(selection.rejected().stream().anyMatch(r -> r.startsWith("shm: reaches only peers on this host")),
            selection.rejected().toString());
        assertEquals("shm", new TransportSelector(List.of(new ShmTransportProvider())).evaluate("shm")
            .provider().name());
    }

    private static List<String> mappingsOf(final String path) throws Exception
    {
        return Files.readAllLines(Path.of("/proc/self/maps")).stream().filter(l -> l.contains(path)).toList();
    }

    /** A read-only descriptor of the region's file that this process received (the reader's). */
    private static int readerFd() throws Exception
    {
        try (var fds = Files.newDirectoryStream(Path.of("/proc/self/fd")))
        {
            for (final Path fd : fds)
            {
                try
                {
                    if (Files.readSymbolicLink(fd).toString().startsWith("/memfd:rdmakv-test-secret"))
                    {
                        final String flags = Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd.getFileName()))
                            .stream().filter(l -> l.startsWith("flags:")).findFirst().orElse("");
                        final int accessMode = Integer.parseInt(flags.substring(6).trim(), 8) & 3;
                        if (accessMode == LibCLayout.O_RDONLY)
                        {
                            return Integer.parseInt(fd.getFileName().toString());
                        }
                    }
                }
                catch (final java.io.IOException ignore)
                {
                    // closed meanwhile
                }
            }
        }
        assertFalse(true, "no read-only descriptor of the region's file is open");
        return -1;
    }
}

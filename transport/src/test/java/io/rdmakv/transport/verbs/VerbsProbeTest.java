package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Each reason verbs may be unusable gives its own readable cause; the real probe on this machine agrees. */
class VerbsProbeTest
{
    /** A description of a machine for the probe's decision logic. */
    private record Machine(boolean disabled, Throwable library, boolean dir, List<DeviceSummary> devices)
        implements VerbsProbe.Environment
    {
        @Override
        public boolean disabledByProperty()
        {
            return disabled;
        }

        @Override
        public Throwable libraryFailure()
        {
            return library;
        }

        @Override
        public boolean deviceDirectoryExists()
        {
            return dir;
        }
    }

    private static final DeviceSummary ACTIVE = new DeviceSummary("rxe0", List.of("port 1 ACTIVE"), true);
    private static final DeviceSummary DOWN = new DeviceSummary("mlx5_0", List.of("port 1 DOWN"), false);

    @Test
    void shouldNameThePropertyWhenDisabled()
    {
        final String cause = VerbsProbe.probe(new Machine(true, null, true, List.of(ACTIVE)));
        assertTrue(cause.contains("rdmakv.transport.verbs.disabled"), cause);
    }

    @Test
    void shouldSayWhenLibibverbsCannotBeLoaded()
    {
        final String cause = VerbsProbe.probe(
            new Machine(false, new UnsatisfiedLinkError("libibverbs.so: cannot open shared object file"), true,
                List.of(ACTIVE)));
        assertTrue(cause.startsWith("libibverbs could not be loaded"), cause);
        assertTrue(cause.contains("cannot open shared object file"), cause);
    }

    @Test
    void shouldSayWhyLibibverbsCannotBeLoadedOnOneLine()
    {
        // JNA's message as it reads on a host without rdma-core: one line per path tried, then the resource path.
        final UnsatisfiedLinkError jna = new UnsatisfiedLinkError("Unable to load library 'ibverbs':\n" +
            "libibverbs.so: cannot open shared object file: No such file or directory\n" +
            "libibverbs.so: cannot open shared object file: No such file or directory\n" +
            "Native library (linux-x86-64/libibverbs.so) not found in resource path (/opt/rdmakv.jar)");
        final String cause = VerbsProbe.probe(new Machine(false, jna, true, List.of(ACTIVE)));
        assertEquals("libibverbs could not be loaded (install libibverbs1 and ibverbs-providers from rdma-core): " +
            "UnsatisfiedLinkError: libibverbs.so: cannot open shared object file: No such file or directory", cause);
    }

    @Test
    void shouldSayWhenDevInfinibandIsMissing()
    {
        final String cause = VerbsProbe.probe(new Machine(false, null, false, List.of(ACTIVE)));
        assertTrue(cause.startsWith("/dev/infiniband does not exist"), cause);
        assertTrue(cause.contains("rdma_rxe"), cause);
        assertTrue(cause.contains("--device /dev/infiniband/uverbs0"), "the container's case: " + cause);
    }

    @Test
    void shouldSayWhenThereIsNoDevice()
    {
        final String cause = VerbsProbe.probe(new Machine(false, null, true, List.of()));
        assertTrue(cause.startsWith("no RDMA device found"), cause);
    }

    @Test
    void shouldSayWhenNoPortIsActiveAndListThePorts()
    {
        final String cause = VerbsProbe.probe(new Machine(false, null, true, List.of(DOWN)));
        assertTrue(cause.startsWith("no RDMA device has an ACTIVE port"), cause);
        assertTrue(cause.contains("mlx5_0 [port 1 DOWN]"), cause);
    }

    @Test
    void shouldBeAvailableWithOneActivePort()
    {
        assertNull(VerbsProbe.probe(new Machine(false, null, true, List.of(DOWN, ACTIVE))));
    }

    @Test
    void shouldGiveFourDistinctCauses()
    {
        final List<String> causes = new ArrayList<>();
        causes.add(VerbsProbe.probe(new Machine(false, new UnsatisfiedLinkError("x"), true, List.of())));
        causes.add(VerbsProbe.probe(new Machine(false, null, false, List.of())));
        causes.add(VerbsProbe.probe(new Machine(false, null, true, List.of())));
        causes.add(VerbsProbe.probe(new Machine(false, null, true, List.of(DOWN))));
        assertEquals(4, causes.stream().map(c -> c.substring(0, 20)).distinct().count(), causes.toString());
    }

    @Test
    void shouldReportTheRealMachineConsistently()
    {
        final VerbsTransportProvider provider = new VerbsTransportProvider();
        final String cause = provider.unavailabilityCause();
        assertEquals(cause == null, provider.isAvailable());
        if (!Files.isDirectory(Path.of(VerbsProbe.DEVICE_DIRECTORY)))
        {
            assertNotNull(cause);
            assertTrue(cause.contains("libibverbs") || cause.contains("/dev/infiniband"), cause);
            final TransportException e = assertThrows(TransportException.class,
                () -> provider.open(TransportConfig.defaults()));
            assertTrue(e.getMessage().contains(cause), e.getMessage());
        }
        System.out.println("verbs on this machine: " + (cause == null ? "available" : cause));
    }

    @Test
    void shouldBeFoundByServiceLoaderWithNativeReadCapabilities()
    {
        final List<String> names = new ArrayList<>();
        ServiceLoader.load(TransportProvider.class).forEach(p -> names.add(p.name()));
        assertTrue(names.contains("verbs"), names.toString());
        final VerbsTransportProvider p = new VerbsTransportProvider();
        assertTrue(p.capabilities().has(io.rdmakv.transport.TransportCapability.READ_NATIVE));
        assertTrue(p.capabilities().has(io.rdmakv.transport.TransportCapability.READ_BATCH));
        assertTrue(p.capabilities().has(io.rdmakv.transport.TransportCapability.SEND_RECV));
        assertFalse(p.capabilities().has(io.rdmakv.transport.TransportCapability.READ_EMULATED));
        assertTrue(p.capabilities().maxSendBytes() >= (1 << 20) + 4096);
    }

    @Test
    void shouldHonourTheDisableProperty()
    {
        final String key = "rdmakv.transport.verbs.disabled";
        final String before = System.getProperty(key);
        System.setProperty(key, "true");
        try
        {
            final VerbsTransportProvider p = new VerbsTransportProvider();
            assertFalse(p.isAvailable());
            assertTrue(p.unavailabilityCause().contains(key));
        }
        finally
        {
            if (before == null)
            {
                System.clearProperty(key);
            }
            else
            {
                System.setProperty(key, before);
            }
        }
    }
}

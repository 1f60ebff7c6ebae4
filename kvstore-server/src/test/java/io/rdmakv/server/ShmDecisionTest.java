package io.rdmakv.server;

import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.config.ShmServing;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.select.TransportSelector;
import io.rdmakv.transport.shm.ShmTransportProvider;
import org.junit.jupiter.api.Test;

import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

/**
 * {@code transport.serveShm}: {@code auto} (the default) serves shm beside tcp and never beside verbs, and goes without
 * it, saying why, where it would not be free or cannot work; {@code true} and {@code false} keep their meaning.
 */
class ShmDecisionTest
{
    private static final String HOST = "0e0e-boot:net:[4026531840]";

    private final Fake tcp = new Fake("tcp", null, TransportCapability.SEND_RECV, TransportCapability.READ_EMULATED);
    private final Fake verbs = new Fake("verbs", null, TransportCapability.SEND_RECV, TransportCapability.READ_NATIVE);
    private final Fake shm = new Fake("shm", null, TransportCapability.SEND_RECV, TransportCapability.READ_NATIVE,
        TransportCapability.HOST_LOCAL, TransportCapability.MEMORY_FILE_REGIONS);
    private final TransportSelector selector = new TransportSelector(List.of(tcp, verbs, shm));

    private static ServerConfig config(final Map<String, String> settings)
    {
        return ServerConfig.from(new Properties(), settings);
    }

    @Test
    void shouldGiveTheNodesShmWorkersASpinWindowThatTheSettingsOverride()
    {
        assumeFalse(System.getProperty("rdmakv.transport.shm.spinMicros") != null, "the JVM property overrides it");
        assertEquals(ShmDecision.NODE_SPIN_MICROS, KvServer.transportConfig(ServerConfig.defaults())
            .intProperty(ShmTransportProvider.PROP_SPIN_MICROS, -1), "a node polls its rings after work");
        assertEquals(0, KvServer.transportConfig(ServerConfig.from(new Properties(), Map.of("shm.spinMicros", "0")))
            .intProperty(ShmTransportProvider.PROP_SPIN_MICROS, -1), "the setting wins");
        assertEquals(ShmTransportProvider.DEFAULT_SPIN_MICROS, 0, "a client's shm worker does not spin beside callers");
        assertEquals(ShmTransportProvider.PROP_SPIN_MICROS, ShmDecision.SPIN_MICROS_PROPERTY, "the provider's name");
    }

    @Test
    void shouldServeShmBesideTcpByDefault()
    {
        assertEquals(ShmServing.AUTO, config(Map.of()).serveShm(), "auto is the default");
        final ShmDecision d = ShmDecision.decide(config(Map.of()), tcp, selector, HOST);
        assertSame(shm, d.provider());
        assertTrue(d.reason().startsWith("transport.serveShm=auto: the main transport is tcp"), d.reason());
        assertTrue(d.reason().contains("clients on this host and in its network namespace pick shm"), d.reason());
    }

    @Test
    void shouldNotServeShmBesideVerbsWhenAutoButServeItWhenTrue()
    {
        final ShmDecision auto = ShmDecision.decide(config(Map.of()), verbs, selector, HOST);
        assertFalse(auto.serves());
        assertTrue(auto.reason().contains("not beside verbs, whose adapter reads the pool"), auto.reason());
        assertTrue(auto.reason().contains("transparent huge pages"), auto.reason());

        final ShmDecision on = ShmDecision.decide(config(Map.of("transport.serveShm", "true")), verbs, selector, HOST);
        assertSame(shm, on.provider(), "true serves it beside any main transport");
        assertEquals("transport.serveShm=true", on.reason());
    }

    @Test
    void shouldNotServeShmWhenFalse()
    {
        final ShmDecision d = ShmDecision.decide(config(Map.of("transport.serveShm", "FALSE")), tcp, selector, HOST);
        assertNull(d.provider());
        assertEquals("transport.serveShm=false", d.reason());
    }

    @Test
    void shouldNotServeShmBesideItselfWhenShmIsTheMainTransport()
    {
        final ShmDecision d = ShmDecision.decide(config(Map.of()), shm, selector, HOST);
        assertFalse(d.serves());
        assertEquals("shm is the main transport", d.reason());
    }

    @Test
    void shouldGoWithoutShmWhenAutoAndThePoolAsksForHugePages()
    {
        final ShmDecision d = ShmDecision.decide(config(Map.of("pool.hugePages", "TRANSPARENT")), tcp, selector,
            HOST);
        assertFalse(d.serves());
        assertTrue(d.reason().contains("pool.hugePages=TRANSPARENT asks for huge pages"), d.reason());
    }

    @Test
    void shouldGoWithoutShmWhenAutoAndTheHostIdentityIsUnknown()
    {
        final ShmDecision d = ShmDecision.decide(config(Map.of()), tcp, selector, "");
        assertFalse(d.serves());
        assertTrue(d.reason().contains("no client could tell it shares the host"), d.reason());
    }

    @Test
    void shouldGoWithoutShmAndSayWhyWhenShmIsUnusableHere()
    {
        final Fake refused = new Fake("shm", "no memory file for a shared pool: shm: memfd_create failed, errno 38",
            TransportCapability.SEND_RECV, TransportCapability.HOST_LOCAL);
        final TransportSelector without = new TransportSelector(List.of(tcp, refused));
        for (final String setting : List.of("auto", "true"))
        {
            final ShmDecision d = ShmDecision.decide(config(Map.of("transport.serveShm", setting)), tcp, without,
                HOST);
            assertFalse(d.serves(), setting);
            assertEquals("transport.serveShm=" + setting + ": shm is unusable here: no memory file for a shared " +
                "pool: shm: memfd_create failed, errno 38", d.reason());
        }
        final ShmDecision absent = ShmDecision.decide(config(Map.of()), tcp, new TransportSelector(List.of(tcp)), HOST);
        assertFalse(absent.serves());
        assertTrue(absent.reason().contains("not on the class path"), absent.reason());
    }

    /** A provider described by its name, availability and flags; it cannot be opened. */
    private record Fake(String name, String cause, EnumSet<TransportCapability> flags) implements TransportProvider
    {
        Fake(final String name, final String cause, final TransportCapability first,
            final TransportCapability... rest)
        {
            this(name, cause, EnumSet.of(first, rest));
        }

        @Override
        public boolean isAvailable()
        {
            return cause == null;
        }

        @Override
        public String unavailabilityCause()
        {
            return cause;
        }

        @Override
        public TransportCapabilities capabilities()
        {
            return new TransportCapabilities(flags, 1 << 16, 1 << 20, 128, 1_000, 1e9);
        }

        @Override
        public Transport open(final TransportConfig config)
        {
            throw new TransportException("not openable in this test");
        }
    }
}

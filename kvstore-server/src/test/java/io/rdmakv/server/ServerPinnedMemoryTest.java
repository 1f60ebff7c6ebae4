package io.rdmakv.server;

import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.transport.tcp.TcpTransportProvider;
import io.rdmakv.transport.verbs.VerbsTransportProvider;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a node pins, from its settings, and its start-up refusal when the memlock limit cannot hold it (the verbs
 * figures are computed from the settings alone, so this runs on any host; the registration itself is proven in the
 * SoftRoCE guest).
 */
class ServerPinnedMemoryTest
{
    private static final long MIB = 1 << 20;
    private static final long DEFAULT_SLICE = 5 * MIB + 4096;
    private static final MemlockLimit EIGHT_MIB = new MemlockLimit(8 * MIB, 8 * MIB, false);

    private static ServerConfig config(final Map<String, String> settings)
    {
        return ServerConfig.from(new Properties(), settings);
    }

    @Test
    void shouldCountThePoolAndTheWorkersEndpointBuffersOnVerbs()
    {
        final ServerPinnedMemory pinned = ServerPinnedMemory.of(ServerConfig.defaults(), new VerbsTransportProvider());
        assertTrue(pinned.hasWorkerBuffers());
        assertEquals(64 * MIB, pinned.poolBytes());
        assertEquals(16 * DEFAULT_SLICE, pinned.workerBytes());
        assertEquals(64 * MIB + 16 * DEFAULT_SLICE, pinned.totalBytes());
        assertTrue(pinned.parts().startsWith("pool.size 64.0 MiB (67108864 bytes) + endpoint buffers 1 worker x " +
            "80.1 MiB (83951616 bytes) (verbs.maxEndpoints 16 x 5124 KiB per endpoint"), pinned.parts());
        assertTrue(pinned.parts().endsWith("= 144.1 MiB (151060480 bytes)"), pinned.parts());
    }

    @Test
    void shouldSizeTheBuffersFromTheServersOwnTransportSettings()
    {
        // transport.maxInflightPerEndpoint is the default send and receive depth: (32 + 32) x 16 KiB + 1 MiB + 4 KiB.
        final ServerPinnedMemory pinned = ServerPinnedMemory.of(config(Map.of("pool.size", "4MiB",
            "transport.maxInflightPerEndpoint", "32", "verbs.maxEndpoints", "2")), new VerbsTransportProvider());
        assertEquals(4 * MIB + 2 * (2 * MIB + 4096), pinned.totalBytes());
        assertEquals(java.util.List.of("pool.size (now 4.0 MiB)", "verbs.maxEndpoints (now 2)",
            "verbs.sendDepth (now 32)", "verbs.recvDepth (now 32)"), pinned.shrinkSettings());
    }

    @Test
    void shouldCountThePoolAloneOnTcp()
    {
        final ServerPinnedMemory pinned = ServerPinnedMemory.of(ServerConfig.defaults(), new TcpTransportProvider());
        assertFalse(pinned.hasWorkerBuffers());
        assertEquals(64 * MIB, pinned.totalBytes());
        assertEquals("pool.size 64.0 MiB (67108864 bytes)", pinned.parts());
        // The pool's own check (by pool.pin) decides on tcp.
        assertDoesNotThrow(() -> pinned.check(EIGHT_MIB));
    }

    @Test
    void shouldRefuseToStartWhenThePoolFitsButThePoolAndTheBuffersDoNot()
    {
        final ServerPinnedMemory pinned = ServerPinnedMemory.of(config(Map.of("pool.size", "4MiB")),
            new VerbsTransportProvider());
        assertTrue(EIGHT_MIB.allows(pinned.poolBytes()), "the pool alone fits");
        final ServerStartException refused = assertThrows(ServerStartException.class, () -> pinned.check(EIGHT_MIB));
        final String message = refused.getMessage();
        final long total = 4 * MIB + 16 * DEFAULT_SLICE;
        assertTrue(message.startsWith("cannot lock the pool and the endpoint buffers in RAM: the transport " +
            "registers (pins) the pool and each worker's endpoint buffers"), message);
        assertTrue(message.contains("pool.size 4.0 MiB (4194304 bytes) + endpoint buffers 1 worker x 80.1 MiB"),
            message);
        assertTrue(message.contains("Requested 84.1 MiB (" + total + " bytes)") &&
            message.contains("soft limit 8.0 MiB (8388608 bytes)"), message);
        assertTrue(message.contains("at least " + total / 1024 + ")") && message.contains("LimitMEMLOCK=infinity") &&
            message.contains("--ulimit memlock=-1:-1"), message);
        assertTrue(message.endsWith("or pin less: lower pool.size (now 4.0 MiB), verbs.maxEndpoints (now 16), " +
            "verbs.sendDepth (now 128) or verbs.recvDepth (now 128)"), message);
    }

    @Test
    void shouldStartWhenTheLimitHoldsEverythingOrDoesNotApply()
    {
        final ServerPinnedMemory pinned = ServerPinnedMemory.of(config(Map.of("pool.size", "4MiB",
            "verbs.maxEndpoints", "1")), new VerbsTransportProvider());
        assertEquals(4 * MIB + DEFAULT_SLICE, pinned.totalBytes());
        assertDoesNotThrow(() -> pinned.check(new MemlockLimit(pinned.totalBytes(), pinned.totalBytes(), false)));
        assertThrows(ServerStartException.class,
            () -> pinned.check(new MemlockLimit(pinned.totalBytes() - 4096, pinned.totalBytes(), false)));
        assertDoesNotThrow(() -> pinned.check(new MemlockLimit(8 * MIB, 8 * MIB, true)));
        assertDoesNotThrow(() -> pinned.check(new MemlockLimit(MemlockLimit.UNLIMITED, MemlockLimit.UNLIMITED,
            false)));
    }
}

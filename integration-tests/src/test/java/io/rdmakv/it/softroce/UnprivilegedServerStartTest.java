package io.rdmakv.it.softroce;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.ServerPinnedMemory;
import io.rdmakv.server.ServerStartException;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.transport.verbs.VerbsTransportProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A whole verbs node started as an unprivileged user under the guest's default 8 MiB memlock limit (guest-job.sh
 * step 4): with its default endpoint buffers the node refuses to start up front, naming the pool, the buffers, the
 * limit and the settings that shrink them, not with a kernel error halfway through; sized to fit, the same user's
 * node starts, registers its pool once and serves a one-sided GET to a client in the same process.
 */
@Tag(SoftRoceGuest.TAG)
@Tag(SoftRoceGuest.UNPRIVILEGED_TAG)
class UnprivilegedServerStartTest
{
    private static final long MIB = 1024 * 1024;

    @TempDir
    Path dataDir;

    private Map<String, String> settings(final String poolSize)
    {
        final Map<String, String> s = new HashMap<>();
        s.put("transport", VerbsTransportProvider.NAME);
        s.put("pool.size", poolSize);
        s.put("data.dir", dataDir.toString());
        s.put("host", "127.0.0.1");
        s.put("control.port", "0");
        s.put("data.port", "0");
        return s;
    }

    @Test
    @Timeout(120)
    void shouldRefuseToStartWhenThePoolFitsButThePoolAndTheEndpointBuffersDoNot()
    {
        final MemlockLimit limit = MemlockLimit.current();
        assertFalse(limit.ipcLockCapability(), "unprivileged run expected: " + limit);
        final ServerConfig config = ServerConfig.from(new Properties(), settings("4MiB"));
        final ServerPinnedMemory pinned = ServerPinnedMemory.of(config, new VerbsTransportProvider());
        assertTrue(limit.allows(pinned.poolBytes()), "the pool alone fits: " + limit);
        assertFalse(pinned.fits(limit), "pool and default buffers must not: " + pinned.parts());

        final ServerStartException refused = assertThrows(ServerStartException.class, () -> KvServer.start(config).close());
        final String message = refused.getMessage();
        assertTrue(message.startsWith("cannot lock the pool and the endpoint buffers in RAM"), message);
        assertTrue(message.contains(pinned.parts()), message);
        assertTrue(message.contains(Long.toString(limit.softLimitBytes())), message);
        assertTrue(message.contains("verbs.maxEndpoints (now 16)"), message);
    }

    @Test
    @Timeout(300)
    void shouldStartAndServeAOneSidedGetWhenSizedToFitTheLimit()
    {
        final Map<String, String> s = settings("2MiB");
        s.put("verbs.maxEndpoints", "1");
        s.put("transport.maxInflightPerEndpoint", "16");
        final ServerConfig config = ServerConfig.from(new Properties(), s);
        final MemlockLimit limit = MemlockLimit.current();
        final ServerPinnedMemory pinned = ServerPinnedMemory.of(config, new VerbsTransportProvider());
        assertTrue(pinned.totalBytes() < 4 * MIB && pinned.fits(limit), pinned.parts() + " within " + limit);

        try (KvServer server = KvServer.start(config))
        {
            assertEquals(VerbsTransportProvider.NAME, server.transportName());
            assertEquals(1, server.registrationsAfterStart(), "the whole pool, registered once");
            // The pool's, and the request worker's endpoint buffers' (both at start); none per connection or request.
            final long registrations = server.registrationCount();
            assertEquals(registrations, server.registrationsWhenReady(),
                "the count the node checks at stop includes the start-up worker's buffers (no false ERROR)");
            // The client pins little too: one endpoint of depth 16 and four 4 KiB read buffers.
            try (KvClient client = KvClient.builder()
                .server("127.0.0.1:" + server.controlAddress().getPort())
                .transport(VerbsTransportProvider.NAME)
                .getMode(GetMode.ONE_SIDED)
                .maxInFlight(4)
                .oneSidedBufferBytes(4096)
                .transportProperty("verbs.maxEndpoints", "1")
                .transportProperty("maxInflightPerEndpoint", "16")
                .build())
            {
                final byte[] key = "unprivileged".getBytes(StandardCharsets.UTF_8);
                final byte[] value = "served from a pool pinned under an 8 MiB limit".getBytes(StandardCharsets.UTF_8);
                client.put(key, value);
                assertArrayEquals(value, client.get(key));
                assertEquals(1, client.diagnostics().counters().get(ClientCounter.GET_ONE_SIDED_HITS),
                    "the GET was a one-sided read of the registered pool");
            }
            assertEquals(server.registrationsWhenReady(), server.registrationCount(),
                "no registration on the data path");
        }
    }
}

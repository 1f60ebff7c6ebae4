package io.rdmakv.client.internal;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.verbs.VerbsTransportProvider;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The settings a client opens its transport with: on a transport with endpoint slots (verbs) a client's worker has
 * room for a few endpoints (one per server node), not the server-sized transport default, so it pins a few endpoints'
 * buffers; and when they are all taken the failure names the builder property that gives more. The client asks
 * through the SPI ({@code TransportConfig.endpointSlots}); verbs' pinning computed from those settings shows the
 * transport honours them (the verbs connections themselves run in the SoftRoCE guest).
 */
class ClientTransportSettingsTest
{
    private static final long DEFAULT_SLICE = (5L << 20) + 4096;

    private static KvClientBuilder builder()
    {
        return KvClient.builder().server("127.0.0.1:7400");
    }

    @Test
    void shouldGiveAClientFourEndpointSlotsByDefault()
    {
        final KvClientConfig config = builder().transport("verbs").config();
        final TransportConfig tc = ClientRuntime.transportConfig(config, true, 1);

        assertEquals(KvClientBuilder.DEFAULT_ENDPOINT_SLOTS, tc.endpointSlots());
        assertNull(tc.property("verbs.maxEndpoints", null), "the client names no transport's property");
        // 4 x 5 MiB + 4 KiB pinned per client worker, a quarter of the transport's (server-sized) default.
        final VerbsTransportProvider verbs = new VerbsTransportProvider();
        assertTrue(verbs.capabilities().has(TransportCapability.ENDPOINT_SLOTS));
        assertEquals(4 * DEFAULT_SLICE, verbs.workerPinning(tc).bytes());
        assertEquals(16 * DEFAULT_SLICE, verbs.workerPinning(TransportConfig.defaults()).bytes());
    }

    @Test
    void shouldScaleEndpointSlotsWithTheClusterMap()
    {
        final KvClientConfig config = builder().transport("verbs").config();
        assertEquals(17, ClientRuntime.transportConfig(config, true, 16).endpointSlots(), "one per node and a spare");
        assertEquals(4, ClientRuntime.transportConfig(config, true, 2).endpointSlots(), "never below four");
        final KvClientConfig set = builder().transport("verbs").transportProperty(KvClientBuilder.ENDPOINT_SLOTS, "6")
            .config();
        final TransportConfig tc = ClientRuntime.transportConfig(set, true, 16);
        assertEquals(6, tc.endpointSlots(), "the builder's setting wins");
        assertEquals(6 * DEFAULT_SLICE, new VerbsTransportProvider().workerPinning(tc).bytes());
    }

    @Test
    void shouldLetTheTransportsOwnPropertyWinAndKeepTheOtherProperties()
    {
        final KvClientConfig config = builder().transport("verbs").transportProperty("verbs.maxEndpoints", "9")
            .transportProperty("verbs.device", "rxe0").transportProperty("maxInflightPerEndpoint", "32").config();
        final TransportConfig tc = ClientRuntime.transportConfig(config, true, 1);

        assertEquals("9", tc.property("verbs.maxEndpoints", null));
        assertEquals("rxe0", tc.property("verbs.device", null));
        assertEquals(32, tc.maxInflightPerEndpoint());
        // (32 + 32) x 16 KiB + 1 MiB + 4 KiB = 2 MiB + 4 KiB per endpoint, for 9 endpoints (not the typed 4).
        assertEquals(9 * ((2L << 20) + 4096), new VerbsTransportProvider().workerPinning(tc).bytes());
    }

    @Test
    void shouldLeaveTransportsWithoutEndpointSlotsAlone()
    {
        final KvClientConfig config = builder().config();
        final TransportConfig tc = ClientRuntime.transportConfig(config, false, 1);

        assertEquals(0, tc.endpointSlots());
        assertEquals(Map.of(), tc.properties());
        assertEquals(config.connectTimeout(), tc.connectTimeout());
        assertEquals(config.requestTimeout(), tc.operationTimeout());
    }

    @Test
    void shouldNameTheBuilderPropertyOnlyWhenTheClientsOwnConnectionsTakeEveryEndpointSlot()
    {
        final String hint = ClusterRouter.endpointSlotsHint(4, 4);
        assertTrue(hint.contains("This client has 4 data connections open (one per node) and room for 4"), hint);
        assertTrue(hint.contains("KvClientBuilder.transportProperty(\"endpointSlots\", \"5\")"), hint);
        assertTrue(hint.contains("a client's default is 4"), hint);

        assertEquals("", ClusterRouter.endpointSlotsHint(3, 4), "a free slot: the refusal came from elsewhere");
        assertEquals("", ClusterRouter.endpointSlotsHint(7, 0), "no slots on this transport");
        assertFalse(ClusterRouter.endpointSlotsHint(5, 4).isEmpty());
    }
}

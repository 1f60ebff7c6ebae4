package io.rdmakv.client.internal;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.verbs.VerbsTransportProvider;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The settings a client opens its transport with: on verbs a client's worker has room for a few endpoints (one per
 * server node), not the server-sized transport default, so it pins a few endpoints' buffers; and when they are all
 * taken the failure names the builder property that gives more. The sizes come from the settings alone (the
 * verbs connections themselves run in the SoftRoCE guest).
 */
class ClientTransportSettingsTest
{
    private static final long DEFAULT_SLICE = (5L << 20) + 4096;

    private static KvClientBuilder builder()
    {
        return KvClient.builder().server("127.0.0.1:7400");
    }

    @Test
    void shouldGiveAVerbsClientFourEndpointSlotsByDefault()
    {
        final KvClientConfig config = builder().transport("verbs").config();
        final TransportConfig tc = ClientRuntime.transportConfig(config, VerbsTransportProvider.NAME);

        assertEquals("4", tc.property("verbs.maxEndpoints", null));
        assertEquals(KvClientBuilder.DEFAULT_VERBS_MAX_ENDPOINTS, ClientRuntime.endpointSlots(tc, "verbs"));
        // 4 x 5 MiB + 4 KiB pinned per client worker, a quarter of the transport's (server-sized) default.
        final VerbsTransportProvider verbs = new VerbsTransportProvider();
        assertEquals(4 * DEFAULT_SLICE, verbs.workerPinning(tc).bytes());
        assertEquals(16 * DEFAULT_SLICE, verbs.workerPinning(TransportConfig.defaults()).bytes());
    }

    @Test
    void shouldScaleAVerbsClientsEndpointSlotsWithTheClusterMap()
    {
        final KvClientConfig config = builder().transport("verbs").config();
        final TransportConfig sixteen = ClientRuntime.transportConfig(config, VerbsTransportProvider.NAME, 16);
        assertEquals(17, ClientRuntime.endpointSlots(sixteen, "verbs"), "one per node and a spare");
        assertEquals(4, ClientRuntime.endpointSlots(
            ClientRuntime.transportConfig(config, VerbsTransportProvider.NAME, 2), "verbs"), "never below four");
        final KvClientConfig set = builder().transport("verbs").transportProperty("verbs.maxEndpoints", "6").config();
        assertEquals(6, ClientRuntime.endpointSlots(
            ClientRuntime.transportConfig(set, VerbsTransportProvider.NAME, 16), "verbs"), "the builder's setting wins");
    }

    @Test
    void shouldKeepTheBuildersOwnSettingAndTheOtherProperties()
    {
        final KvClientConfig config = builder().transport("verbs").transportProperty("verbs.maxEndpoints", "9")
            .transportProperty("verbs.device", "rxe0").transportProperty("maxInflightPerEndpoint", "32").config();
        final TransportConfig tc = ClientRuntime.transportConfig(config, VerbsTransportProvider.NAME);

        assertEquals("9", tc.property("verbs.maxEndpoints", null));
        assertEquals("rxe0", tc.property("verbs.device", null));
        assertEquals(32, tc.maxInflightPerEndpoint());
        assertEquals(9, ClientRuntime.endpointSlots(tc, "verbs"));
        // (32 + 32) x 16 KiB + 1 MiB + 4 KiB = 2 MiB + 4 KiB per endpoint.
        assertEquals(9 * ((2L << 20) + 4096), new VerbsTransportProvider().workerPinning(tc).bytes());
    }

    @Test
    void shouldLeaveOtherTransportsAlone()
    {
        final KvClientConfig config = builder().config();
        final TransportConfig tc = ClientRuntime.transportConfig(config, "tcp");

        assertNull(tc.property("verbs.maxEndpoints", null));
        assertEquals(0, ClientRuntime.endpointSlots(tc, "tcp"));
        assertEquals(config.connectTimeout(), tc.connectTimeout());
        assertEquals(config.requestTimeout(), tc.operationTimeout());
    }

    @Test
    void shouldNameTheBuilderPropertyOnlyWhenTheClientsOwnConnectionsTakeEverySlot()
    {
        final String hint = ClusterRouter.endpointSlotsHint(4, 4);
        assertTrue(hint.contains("This client has 4 data connections open (one per node) and room for 4"), hint);
        assertTrue(hint.contains("KvClientBuilder.transportProperty(\"verbs.maxEndpoints\", \"5\")"), hint);
        assertTrue(hint.contains("a client's default is 4"), hint);

        assertEquals("", ClusterRouter.endpointSlotsHint(3, 4), "a free slot: the refusal came from elsewhere");
        assertEquals("", ClusterRouter.endpointSlotsHint(7, 0), "no slots on this transport");
        assertFalse(ClusterRouter.endpointSlotsHint(5, 4).isEmpty());
    }
}

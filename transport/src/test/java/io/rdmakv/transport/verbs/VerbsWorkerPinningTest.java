package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.WorkerPinning;
import io.rdmakv.transport.tcp.TcpTransportProvider;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What a verbs worker pins, computed from the settings alone (no device: runs on any host), by the same layout the
 * worker registers; and the text a worker gives when that registration hits the memlock limit.
 */
class VerbsWorkerPinningTest
{
    private static final long DEFAULT_SLICE = (5 << 20) + 4096;

    @Test
    void shouldPinSixteenDefaultSlicesPerWorkerByDefault()
    {
        final WorkerPinning pinning = new VerbsTransportProvider().workerPinning(TransportConfig.defaults());
        assertEquals(16 * DEFAULT_SLICE, pinning.bytes());
        assertEquals(83_951_616L, pinning.bytes());
        assertTrue(pinning.breakdown().startsWith("verbs.maxEndpoints 16 x 5124 KiB per endpoint " +
            "((verbs.sendDepth 128 + verbs.recvDepth 128) x verbs.fragmentBytes 16384 B"), pinning.breakdown());
        assertEquals(List.of("verbs.maxEndpoints (now 16)", "verbs.sendDepth (now 128)", "verbs.recvDepth (now 128)"),
            pinning.settings());
    }

    @Test
    void shouldFollowTheSettingsThatSizeTheBlock()
    {
        final TransportConfig small = TransportConfig.builder().maxInflightPerEndpoint(32)
            .property("verbs.maxEndpoints", "2").build();
        // (32 + 32) x 16 KiB + 1 MiB + 4 KiB = 2 MiB + 4 KiB per endpoint.
        assertEquals(2L * ((2 << 20) + 4096), new VerbsTransportProvider().workerPinning(small).bytes());

        final TransportConfig explicit = TransportConfig.builder().property("verbs.sendDepth", "64")
            .property("verbs.recvDepth", "16").property("verbs.fragmentBytes", "4096")
            .property("verbs.maxEndpoints", "3").build();
        // (64 + 16) x 4 KiB + 1 MiB + 4 KiB = 1348 KiB per endpoint.
        assertEquals(3L * 1348 * 1024, new VerbsTransportProvider().workerPinning(explicit).bytes());
    }

    @Test
    void shouldSizeTheWorkerAndTheEstimateByOneLayoutCappedByTheDevice()
    {
        final VerbsConfig config = new VerbsConfig(TransportConfig.defaults());
        assertEquals(config.endpointLayout(Integer.MAX_VALUE).sliceBytes, DEFAULT_SLICE);
        final EndpointBufferLayout capped = config.endpointLayout(64);
        assertEquals(64, capped.sendDepth);
        assertEquals(64, capped.recvDepth);
        assertEquals(16 * capped.sliceBytes, config.workerPinning(64).bytes());
    }

    @Test
    void shouldRefuseABadSettingNamingIt()
    {
        final TransportException e = assertThrows(TransportException.class, () -> new VerbsTransportProvider()
            .workerPinning(TransportConfig.builder().property("verbs.maxEndpoints", "0").build()));
        assertTrue(e.getMessage().contains("verbs.maxEndpoints"), e.getMessage());
    }

    @Test
    void shouldPinNothingPerWorkerOnTcp()
    {
        assertTrue(new TcpTransportProvider().workerPinning(TransportConfig.defaults()).isNone());
    }

    @Test
    void shouldAdviseALimitForWhatIsRegisteredPlusTheBlockAndTheSettingsThatShrinkIt()
    {
        final EndpointBufferLayout layout = new VerbsConfig(TransportConfig.defaults()).endpointLayout(
            Integer.MAX_VALUE);
        final long pool = 64L << 20;
        final String advice = EndpointBufferPool.memlockAdvice(pool, layout.poolBytes(16), layout, 16);
        final long needed = pool + 16 * DEFAULT_SLICE;
        assertTrue(advice.contains("(" + pool + " bytes, e.g. a server's pool) plus these " + 16 * DEFAULT_SLICE +
            " bytes = " + needed + " bytes"), advice);
        assertTrue(advice.contains("at least " + needed / 1024 + " KiB") && advice.contains("ulimit -l") &&
            advice.contains("LimitMEMLOCK") && advice.contains("--ulimit memlock=-1:-1"), advice);
        assertTrue(advice.contains("lower verbs.maxEndpoints (now 16, 5124 KiB each") &&
            advice.contains("verbs.sendDepth / verbs.recvDepth (now 128 / 128)"), advice);
    }
}

package io.rdmakv.transport.verbs;

import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.conformance.AbstractReadConformanceTest;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The read conformance suite run over verbs, plus the race a refused read starts there (issue 10): the target's
 * device refuses the read (a remote access error NAK), its QP goes to error, its transport fails the endpoint and
 * closes the side channel, so the initiator may learn of the side channel's loss as well as of the refusal. Where
 * verbs is unavailable (no HCA, no SoftRoCE) every test is skipped with the probe's cause printed.
 */
class VerbsReadConformanceTest extends AbstractReadConformanceTest
{
    @Override
    protected TransportProvider provider()
    {
        return new VerbsTransportProvider();
    }

    @Override
    protected TransportConfig config()
    {
        return VerbsTestConfig.adapt(super.config());
    }

    @Override
    protected boolean aRefusedReadEndsTheConnection()
    {
        return true;
    }

    /**
     * The interleaving that once made the refused read report PEER_FAILED, forced: the initiator's progress is held
     * while the target refuses the read, fails and closes the side channel, until the loss of that channel waits in
     * the initiator's worker beside the refusal's completion; then one cycle sees both. The refusal wins.
     */
    @Test
    @Timeout(60)
    void shouldAnswerARefusedReadWithTheRefusalWhenTheSideChannelLossIsQueuedFirst() throws Exception
    {
        final Connection c = readConnection();
        final Region other = region(c.server().transport, 4096);
        final RemoteKey key = other.registration().remoteKey();
        final UnsafeBuffer dst = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        assertEquals(TransportStatus.OK, readStatus(c.clientEndpoint(), other.base(), key, 64, dst));
        other.registration().close();

        final VerbsWorker initiator = (VerbsWorker)c.client().worker;
        final VerbsEndpoint endpoint = (VerbsEndpoint)c.clientEndpoint();
        c.client().holdProgress();
        final CompletableFuture<Void> read;
        try
        {
            read = c.clientEndpoint().readAsync(other.base(), key, 64, dst, 0);
            assertTrue(c.server().handler.disconnected.await(30, TimeUnit.SECONDS),
                "the target's endpoint failed after refusing the read");
            awaitTrue(() -> !endpoint.sideChannelActive() && initiator.queuedTasks() > 0, Duration.ofSeconds(30),
                "the initiator's worker has the side channel's loss queued");
            assertFalse(read.isDone(), "nothing completed while the initiator's progress was held");
        }
        finally
        {
            c.client().releaseProgress();
        }

        assertEquals(TransportStatus.INVALID_RKEY, statusOf(read), "the refused read");
        assertEndpointAfterARefusal();
    }
}

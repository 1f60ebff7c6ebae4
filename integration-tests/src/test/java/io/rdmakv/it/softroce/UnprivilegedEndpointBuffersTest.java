package io.rdmakv.it.softroce;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.Worker;
import io.rdmakv.transport.verbs.VerbsConfig;
import io.rdmakv.transport.verbs.VerbsTransportProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A verbs worker registers all its endpoint buffers when it is created (verbs.maxEndpoints slices of about 5 MiB),
 * so under the guest's default 8 MiB memlock limit (guest-job.sh step 4, unprivileged) the default sixteen slices
 * are refused at once, with a message that names both ways out (raise the limit, lower verbs.maxEndpoints), and a
 * worker for one endpoint fits.
 */
@Tag(SoftRoceGuest.TAG)
@Tag(SoftRoceGuest.UNPRIVILEGED_TAG)
class UnprivilegedEndpointBuffersTest
{
    @Test
    @Timeout(120)
    void shouldRefuseTheDefaultEndpointBuffersAboveTheLimitNamingTheFixesAndFitOneEndpoint()
    {
        final VerbsTransportProvider provider = new VerbsTransportProvider();
        assertTrue(provider.isAvailable(), () -> "verbs must be available in the guest: " + provider.unavailabilityCause());

        try (Transport transport = provider.open(TransportConfig.defaults()))
        {
            final long before = transport.memoryDomain().registrationCount();
            final TransportException refused = assertThrows(TransportException.class,
                () -> transport.createWorker("too-many").close());
            final String message = refused.getMessage();
            assertTrue(message.contains("ulimit -l") && message.contains("verbs.maxEndpoints (now " +
                VerbsConfig.DEFAULT_MAX_ENDPOINTS), message);
            assertEquals(before, transport.memoryDomain().registrationCount(), "a refused registration counts");
        }

        final TransportConfig one = TransportConfig.builder().property("verbs.maxEndpoints", "1").build();
        try (Transport transport = provider.open(one))
        {
            final long before = transport.memoryDomain().registrationCount();
            final Worker worker = transport.createWorker("one");
            try
            {
                assertEquals(before + 1, transport.memoryDomain().registrationCount(),
                    "one registration for the worker's endpoint buffers");
            }
            finally
            {
                worker.close();
            }
        }
    }
}

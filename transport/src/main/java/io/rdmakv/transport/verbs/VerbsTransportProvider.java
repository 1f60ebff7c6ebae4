package io.rdmakv.transport.verbs;

import io.rdmakv.transport.JvmAccess;
import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.WorkerPinning;
import io.rdmakv.transport.device.PortAttributes;
import io.rdmakv.transport.device.PortAttributesSource;
import io.rdmakv.transport.verbs.ffi.LibIbverbs;

import java.util.EnumSet;
import java.util.Optional;

/**
 * The verbs transport (libibverbs RC queue pairs through JNA): native one-sided RDMA Read, batched reads with one
 * doorbell, and Send/Recv with credits. Registered with {@link java.util.ServiceLoader}. Whether it can be used is
 * decided once by {@link VerbsProbe}, except the property {@code rdmakv.transport.verbs.disabled}, read on each call.
 * As a {@link PortAttributesSource} it answers {@code doctor}'s port queries ({@code ibv_query_port}: state, MTUs,
 * width, speed, link layer, LID) without opening a transport.
 */
public final class VerbsTransportProvider implements TransportProvider, PortAttributesSource
{
    public static final String NAME = "verbs";
    /** Largest single read: a value extent of 1 MiB plus its header and key. */
    public static final int MAX_READ_BYTES = (1 << 20) + 4096;
    /** Largest message: fragmented over receive buffers and reassembled in order. */
    public static final int MAX_SEND_BYTES = (1 << 20) + 4096;

    private static final TransportCapabilities CAPABILITIES = new TransportCapabilities(
        EnumSet.of(TransportCapability.SEND_RECV, TransportCapability.READ_NATIVE, TransportCapability.READ_BATCH,
            TransportCapability.ENDPOINT_SLOTS),
        MAX_SEND_BYTES, MAX_READ_BYTES, 128,
        // A modest model for an RC QP on real hardware: ~2 us, ~5 GB/s. SoftRoCE is far slower but still native.
        2_000, 5e9);

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String unavailabilityCause()
    {
        if (TransportProvider.isDisabledByProperty(NAME))
        {
            return "verbs disabled by -Drdmakv.transport.verbs.disabled=true";
        }
        return VerbsProbe.Cached.get(VerbsProbe::probe);
    }

    @Override
    public TransportCapabilities capabilities()
    {
        return CAPABILITIES;
    }

    @Override
    public Optional<PortAttributes> portAttributes(final String device, final int port)
    {
        if (device == null || !LibIbverbs.isLoaded())
        {
            return Optional.empty();
        }
        try
        {
            return VerbsPortQuery.query(device, port);
        }
        catch (final RuntimeException | LinkageError e)
        {
            return Optional.empty();
        }
    }

    /**
     * {@code verbs.maxEndpoints} x one endpoint's slice, as {@link VerbsWorker} registers it (the same
     * {@link VerbsConfig#endpointLayout}), without the device's {@code max_qp_wr} cap, which no real device reaches
     * at the default depths.
     */
    @Override
    public WorkerPinning workerPinning(final TransportConfig config)
    {
        return new VerbsConfig(config).workerPinning(Integer.MAX_VALUE);
    }

    @Override
    public Transport open(final TransportConfig config)
    {
        // Every buffer of a transport is Agrona's: say which JVM flag is missing before the first one fails.
        JvmAccess.ensureAgronaAccess();
        final String cause = unavailabilityCause();
        if (cause != null)
        {
            throw new TransportException("verbs transport unavailable: " + cause);
        }
        if (config.maxMessageBytes() > MAX_SEND_BYTES)
        {
            throw new TransportException("maxMessageBytes " + config.maxMessageBytes() + " exceeds the verbs limit " +
                MAX_SEND_BYTES);
        }
        return new VerbsTransport(this, new VerbsConfig(config));
    }
}

package io.rdmakv.transport.shm;

import io.rdmakv.transport.Transport;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;

import java.util.EnumSet;

/**
 * The same-host shared-memory transport (UCX's {@code posix} in spirit): one-sided reads are copies out of the peer's
 * memory file mapped read-only, send/recv goes through shared rings. It reaches only processes on this host, so
 * {@code auto} picks it only against a node that advertises this host's identity; it is usable where a memory file
 * and an abstract Unix socket can be made ({@link ShmProbe}).
 */
public final class ShmTransportProvider implements TransportProvider
{
    public static final String NAME = "shm";
    /** How long an idle worker blocks after work before it runs its timers (ms, default 10). */
    public static final String PROP_IDLE_WAIT_MS = "shm.idleWaitMs";
    /** The longest an idle worker blocks, doubling from shm.idleWaitMs while nothing happens (ms, default 100). */
    public static final String PROP_IDLE_MAX_WAIT_MS = "shm.idleMaxWaitMs";
    /**
     * How long an idle worker keeps polling its rings after its last work before it arms and blocks (us); the JVM
     * property {@code rdmakv.transport.shm.spinMicros} overrides the default, {@value #DEFAULT_SPIN_MICROS}: none, for
     * a client's worker, whose callers poll for their own answers (a progress thread spinning beside them takes the
     * cycle lock and the core from them). A node sets its own ({@code KvServer.NODE_SHM_SPIN_MICROS}).
     */
    public static final String PROP_SPIN_MICROS = "shm.spinMicros";
    /** The default of {@link #PROP_SPIN_MICROS}. */
    public static final int DEFAULT_SPIN_MICROS = 0;
    private static final double LATENCY_NANOS = 300;
    private static final double BANDWIDTH_BYTES_PER_SECOND = 8e9;

    @Override
    public String name()
    {
        return NAME;
    }

    @Override
    public String unavailabilityCause()
    {
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux"))
        {
            return "needs Linux (memfd_create, abstract Unix sockets); this is " + System.getProperty("os.name");
        }
        return ShmProbe.cause();
    }

    @Override
    public TransportCapabilities capabilities()
    {
        return capabilitiesFor(TransportConfig.defaults());
    }

    static TransportCapabilities capabilitiesFor(final TransportConfig config)
    {
        final int ringMax = ShmRings.capacityFor(config.maxMessageBytes()) / 8 - 64;
        return new TransportCapabilities(
            EnumSet.of(TransportCapability.SEND_RECV, TransportCapability.READ_NATIVE, TransportCapability.READ_BATCH,
                TransportCapability.READ_IMMEDIATE, TransportCapability.HOST_LOCAL,
                TransportCapability.MEMORY_FILE_REGIONS),
            Math.min(config.maxMessageBytes(), ringMax), Integer.MAX_VALUE - 8, config.maxInflightPerEndpoint(),
            LATENCY_NANOS, BANDWIDTH_BYTES_PER_SECOND);
    }

    @Override
    public Transport open(final TransportConfig config)
    {
        SharedMapping.checkLoaded();
        return new ShmTransport(config);
    }
}

package io.rdmakv.transport;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a transport can do: flags, size limits, and a simple performance model used to score transports.
 *
 * @param flags                  capability flags.
 * @param maxSendBytes           largest message {@link Endpoint#send} accepts.
 * @param maxReadBytes           largest single {@link Endpoint#read}.
 * @param maxInflightPerEndpoint operations one endpoint keeps in flight before new ones wait in its pending queue.
 * @param latencyNanos           expected small-message one-way latency, for scoring.
 * @param bandwidthBytesPerSecond expected bandwidth, for scoring.
 */
public record TransportCapabilities(
    Set<TransportCapability> flags,
    int maxSendBytes,
    int maxReadBytes,
    int maxInflightPerEndpoint,
    double latencyNanos,
    double bandwidthBytesPerSecond)
{
    public TransportCapabilities
    {
        flags = flags.isEmpty() ? EnumSet.noneOf(TransportCapability.class) : EnumSet.copyOf(flags);
    }

    public boolean has(final TransportCapability capability)
    {
        return flags.contains(capability);
    }

    /** True when one-sided reads are possible at all, natively or emulated. */
    public boolean canRead()
    {
        return has(TransportCapability.READ_NATIVE) || has(TransportCapability.READ_EMULATED);
    }

    /** Estimated time in nanoseconds to move {@code bytes}: latency plus size over bandwidth. */
    public double estimateNanos(final int bytes)
    {
        return latencyNanos + bytes * 1e9 / bandwidthBytesPerSecond;
    }
}

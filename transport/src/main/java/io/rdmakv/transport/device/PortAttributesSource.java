package io.rdmakv.transport.device;

import java.util.Optional;

/**
 * A hook for a transport that can query ports ({@code ibv_query_port}): a {@link io.rdmakv.transport.TransportProvider}
 * that implements this interface (the verbs transport's provider does) gives {@code doctor} the active MTU, which
 * sysfs does not show, and the port as the verbs library sees it. {@code doctor} finds
 * it by {@code instanceof} on the providers of the selector, so no reflection and no dependency of this package on a
 * concrete transport.
 */
public interface PortAttributesSource
{
    /**
     * Query one port.
     *
     * @param device the device name as in sysfs, e.g. {@code mlx5_0}.
     * @param port   the port number (from 1).
     * @return the attributes, or empty when the device or port is unknown or the query failed; never throws.
     */
    Optional<PortAttributes> portAttributes(String device, int port);
}

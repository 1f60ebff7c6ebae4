package io.rdmakv.transport.verbs;

import java.util.List;

/**
 * What the availability probe learnt about one RDMA device without keeping it open.
 *
 * @param name          device name, e.g. {@code rxe0} or {@code mlx5_0}.
 * @param portStates    one readable entry per port, e.g. {@code "port 1 ACTIVE"}.
 * @param hasActivePort whether any port is ACTIVE.
 */
public record DeviceSummary(String name, List<String> portStates, boolean hasActivePort)
{
}

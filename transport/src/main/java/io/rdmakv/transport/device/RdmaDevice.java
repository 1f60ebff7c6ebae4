package io.rdmakv.transport.device;

import java.util.List;

/**
 * One RDMA device ({@code /sys/class/infiniband/<name>}), e.g. {@code mlx5_0} or a SoftRoCE {@code rxe0}.
 *
 * @param name     the device name.
 * @param nodeType {@code node_type}, e.g. {@code 1: CA}.
 * @param firmware {@code fw_ver}, or {@code null}.
 * @param nodeGuid {@code node_guid}, or {@code null}.
 * @param boardId  {@code board_id}, or {@code null} (software devices have none).
 * @param ports    the ports in number order.
 */
public record RdmaDevice(String name, CodedState nodeType, String firmware, String nodeGuid, String boardId,
    List<RdmaPort> ports)
{
    public RdmaDevice
    {
        ports = List.copyOf(ports);
    }
}

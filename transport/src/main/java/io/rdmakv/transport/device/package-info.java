/**
 * The host's RDMA devices as the kernel shows them ({@code /sys/class/infiniband}): devices, ports, GIDs and port
 * counters ({@link io.rdmakv.transport.device.InfinibandSysfs}), and the port attributes sysfs lacks (the active
 * MTU), which a provider that can query the hardware reports through
 * {@link io.rdmakv.transport.device.PortAttributesSource} (verbs, through {@code ibv_query_port}).
 *
 * <p>Read-only file reads, no JNA: it works where libibverbs cannot load. The server's RDMA port meters and
 * {@code rdmakv doctor} (module cli) read it. Must never depend on a concrete transport. Never on the hot path.
 */
package io.rdmakv.transport.device;

/**
 * Diagnostics for operators ({@code rdmakv doctor}), in the spirit of {@code ibv_devinfo}, {@code ibstat} and
 * {@code perfquery}: what the kernel says about RDMA devices and ports ({@code /sys/class/infiniband}), the device
 * files ({@code /dev/infiniband}), the installed libibverbs, the port error counters, and which transport
 * {@code auto} would pick and why. Every finding is a {@link io.rdmakv.transport.diag.Check} with a
 * {@link io.rdmakv.transport.diag.Severity} and, when something is wrong, the fix.
 *
 * <p>Everything here reads files and runs at most two short external commands ({@code ldconfig -p},
 * {@code dpkg-query}); nothing needs JNA, so it works even where libibverbs cannot load. Roots are injectable, so
 * tests build a fixture tree in the exact formats of the kernel. The one value sysfs lacks, the active MTU, comes
 * from a transport that implements {@link io.rdmakv.transport.diag.PortAttributesSource} (the verbs transport's
 * provider, through {@code ibv_query_port}).
 *
 * <p>Must never depend on: a concrete transport (only the SPI and the selector), the protocol, memory-pool or
 * kvstore modules. Never on the hot path.
 */
package io.rdmakv.transport.diag;

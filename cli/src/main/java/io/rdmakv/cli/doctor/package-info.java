/**
 * {@code rdmakv doctor}: the operator's check of a machine and a configuration before a server starts, in the spirit
 * of {@code ibv_devinfo} / {@code ibstat} / {@code perfquery}. {@link io.rdmakv.cli.doctor.TransportDoctor} checks
 * the RDMA devices and ports (read through {@code io.rdmakv.transport.device}), {@code /dev/infiniband}, the installed
 * libibverbs ({@link io.rdmakv.cli.doctor.LibibverbsLocator}, {@link io.rdmakv.cli.doctor.CommandRunner}) and which
 * transport {@code auto} picks; {@link io.rdmakv.cli.doctor.MemlockCheck} adds the pool (and verbs' endpoint buffers)
 * against {@code RLIMIT_MEMLOCK} under the pin mode the server would use. Every finding is a
 * {@link io.rdmakv.cli.doctor.Check} with a {@link io.rdmakv.cli.doctor.Severity} and the fix; the report renders as
 * text ({@code ReportText}) or JSON ({@code ReportJson}). Exit 0 when the configuration can work (warnings included),
 * 2 when it cannot.
 *
 * <p>Lives in the launcher, not the transport jar every embedder loads (held by {@code LayeringTest}). Reads files
 * and runs at most two short commands ({@code ldconfig -p}, {@code dpkg-query}); needs no JNA. Must never depend on
 * the client, or anything that opens a transport or maps memory (doctor only looks).
 */
package io.rdmakv.cli.doctor;

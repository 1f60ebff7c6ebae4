/**
 * {@code rdmakv doctor}: the operator's check of a machine and a configuration before a server starts, in the spirit
 * of {@code ibv_devinfo} / {@code ibstat} / {@code perfquery}. The RDMA and transport checks live in the transport
 * module ({@link io.rdmakv.transport.diag}); this package adds what needs the server's configuration and the memory
 * pool: the pool size against {@code RLIMIT_MEMLOCK} under the pin mode the server would use. Exit 0 when the
 * configuration can work (warnings included), 2 when it cannot, with the fix printed.
 *
 * <p>Must never depend on: the client, or anything that opens a transport or maps memory (doctor only looks).
 */
package io.rdmakv.cli.doctor;

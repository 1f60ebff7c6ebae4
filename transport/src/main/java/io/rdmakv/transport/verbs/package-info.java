/**
 * The verbs transport: RC queue pairs over libibverbs through JNA, for real HCAs and SoftRoCE. Native one-sided
 * RDMA Read (batched with one doorbell), Send/Recv with credits and fragmentation, a TCP control channel (Netty) for
 * the QP handshake and liveness, and a Netty-Epoll-style availability probe ({@link
 * io.rdmakv.transport.verbs.VerbsProbe}).
 *
 * <p>Must never depend on: the tcp transport, the protocol, memory-pool or kvstore modules.
 */
package io.rdmakv.transport.verbs;

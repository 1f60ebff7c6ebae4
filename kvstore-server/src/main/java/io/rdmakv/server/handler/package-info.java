/**
 * The data-plane request adapter: decodes PUT/DELETE/GET/STATS arriving over the transport SPI, enforces limits and
 * routing, writes RocksDB first and the pool second, and answers one RESPONSE per request.
 * Must never depend on: Netty, the control plane, a concrete transport (only the {@code io.rdmakv.transport} SPI),
 * replication (it knows it only through {@link io.rdmakv.server.handler.ReplicaInbox} and the finished
 * {@link io.rdmakv.server.handler.WritePath} it is handed).
 */
package io.rdmakv.server.handler;

/**
 * The server's writer of the on-pool layout: {@link io.rdmakv.server.pool.PoolIndex} (single writer: publish by one
 * ordered 8-byte store, RETIRED before publish, retire through the grace-period reclaimer) and its CLOCK eviction
 * ({@code PoolEviction}), the index sizing, and the start-up warm-up from RocksDB.
 * Must never depend on: the transport, Netty, the request handlers or the control plane.
 */
package io.rdmakv.server.pool;

/**
 * The node's durable store: RocksDB with the write-ahead log on, two durability modes and group commit for FSYNC.
 * Every PUT/DELETE reaches this store before the in-memory pool and before the client is answered. A damaged WAL
 * never loses data silently: {@link io.rdmakv.server.store.WalRecoveryOpener} refuses it or, on the operator's
 * {@code store.walRecovery} choice, recovers and logs the loss at ERROR.
 * Must never depend on: the transport, the memory pool, the protocol or the request handlers.
 */
package io.rdmakv.server.store;

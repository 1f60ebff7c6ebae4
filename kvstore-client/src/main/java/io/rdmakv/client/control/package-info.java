/**
 * The client's side of the control plane: the HELLO / WELCOME / REJECT handshake with a node, over Netty.
 * Used only when connecting and when the cluster map must be refreshed; never on the data path.
 * Must never depend on: the server module, memory-pool, RocksDB.
 */
package io.rdmakv.client.control;

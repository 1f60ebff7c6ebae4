/**
 * Session tickets: the link between a successful control-plane handshake and the data endpoint the same client opens
 * afterwards. The control plane issues a ticket with each WELCOME; the request handler redeems it from the ATTACH
 * that must open every data endpoint. Must never depend on: Netty, the transport, RocksDB or the pool.
 */
package io.rdmakv.server.session;

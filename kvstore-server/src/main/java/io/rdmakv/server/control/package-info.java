/**
 * The control plane (Netty): the HELLO/WELCOME/REJECT handshake on the control port, with a frame-size limit,
 * credential check, connection limit and handshake timeout.
 * Must never depend on: the request handlers, RocksDB, the pool index or a concrete transport.
 */
package io.rdmakv.server.control;

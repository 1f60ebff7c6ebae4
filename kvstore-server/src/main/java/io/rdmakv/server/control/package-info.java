/**
 * The control plane (Netty): the HELLO/WELCOME/REJECT handshake on the control port, with a frame-size limit, a
 * credential check throttled per source, a budget of connections that have not sent a good HELLO (shedding the
 * oldest; {@link io.rdmakv.server.admission}), a limit of welcomed connections and a handshake timeout.
 * Must never depend on: the request handlers, RocksDB, the pool index or a concrete transport.
 */
package io.rdmakv.server.control;

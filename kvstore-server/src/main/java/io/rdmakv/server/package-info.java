/**
 * The key-value server node: {@link io.rdmakv.server.KvServer} wires the durable store, the pool and its index, the
 * transport (data plane) and the control plane together and owns their start/stop order.
 * Must never depend on: the client module or a concrete transport class (transports come through the SPI's
 * {@link io.rdmakv.transport.select.TransportSelector}).
 */
package io.rdmakv.server;

/**
 * The rdmakv client API: {@link io.rdmakv.client.KvClient} built by {@link io.rdmakv.client.KvClientBuilder}, typed
 * failures under {@link io.rdmakv.client.KvException} with a stable {@link io.rdmakv.client.KvError} code, statistics
 * and {@link io.rdmakv.client.KvClientDiagnostics}; values in Chronicle Bytes through
 * {@link io.rdmakv.client.ChronicleKv} (chronicle-bytes is optional: only that class and its helpers use it). Nothing here names a protocol or transport type. The machinery
 * (one-sided GET protocol, RPC correlation, routing, request queue, the progress agent) lives in
 * {@code io.rdmakv.client.internal}, whose only public types are the engine {@code KvClient} calls and the
 * {@code ValueSink} a GET hands its value to; the control-plane
 * client (handshake, also used by tools) in {@code io.rdmakv.client.control}.
 * Must never depend on: the server module, memory-pool, RocksDB (the client reads the pool only through the
 * protocol's layout flyweights and the transport SPI).
 */
package io.rdmakv.client;

/**
 * The rdmakv client API: {@link io.rdmakv.client.KvClient} built by {@link io.rdmakv.client.KvClientBuilder},
 * typed failures ({@link io.rdmakv.client.KvException}, {@link io.rdmakv.client.KvError}) and statistics.
 * The machinery (one-sided GET protocol, RPC correlation, routing, the progress agent) lives in
 * {@code io.rdmakv.client.internal}; the handshake in {@code io.rdmakv.client.control}.
 * Must never depend on: the server module, memory-pool, RocksDB (the client reads the pool only through the
 * protocol's layout flyweights and the transport SPI).
 */
package io.rdmakv.client;

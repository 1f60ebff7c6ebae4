/**
 * The client's engine, not a public API (only {@code ClientRuntime} and {@code ValueSink} are public, for
 * {@code KvClient} and {@code ChronicleKv}): pooled
 * request slots and the bounded queue of async requests waiting for one, the one-sided GET
 * state machine and the per-node location cache that lets it read a remembered value in one read, two-sided requests
 * matched by correlation id, cluster routing with lazy per-node connections, and the conductor agent that shares the
 * transport worker's progress thread. Hot paths allocate nothing per request but the returned value (none when a
 * {@code ValueSink} takes it) and an async call's future.
 * Must never depend on: the server module, memory-pool, RocksDB, a concrete transport (only the SPI).
 */
package io.rdmakv.client.internal;

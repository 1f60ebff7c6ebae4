/**
 * The RESP listener ({@code resp.port}): Redis clients (RESP2, and RESP3 after {@code HELLO 3}) talk to the node over
 * TCP. Commands are decoded by {@code RespDecoder}, answered here, and every GET, PUT and DELETE goes to
 * the node's own request handling as a request of a connection attached like any data endpoint
 * ({@link io.rdmakv.server.resp.RespEndpoint}): the same limits, routing, write path (WAL before the answer,
 * replication, the pool for one-sided readers), counters and connection budget as the binary protocol. Nothing here
 * opens RocksDB. See {@code docs/resp.md}.
 */
package io.rdmakv.server.resp;

/**
 * The node's metrics: Micrometer meters bound to the counters the node already keeps ({@code ServerCounters}, the
 * pool, RocksDB's properties, the transport's registrations, the RDMA ports' sysfs counters), request latency
 * histograms, and the Prometheus endpoint that serves them ({@code metrics.port}). Nothing here counts on its own
 * what a counter elsewhere already counts. Used by {@code KvServer} only; never by the data path's packages.
 */
package io.rdmakv.server.metrics;

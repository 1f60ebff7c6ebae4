/**
 * A perftest-style baseline over the transport layer alone ({@code read-lat}, {@code send-lat}, {@code read-bw}),
 * in the spirit of {@code ib_read_lat}, {@code ib_send_lat} and {@code ib_read_bw}: what the transport that the
 * selector picks (tcp here, verbs on an HCA or SoftRoCE) costs before any key-value logic runs on top of it.
 *
 * <pre>
 *   TransportPerf        command line: roles (server, client, or both in one process over loopback), sizes, iterations
 *     |-- PerfServer     listens, registers one region for remote read, sends its packed rkey, echoes messages
 *     '-- PerfClient     connects, receives the rkey, drives its worker on the calling thread and measures
 *            '-- PerfReport   HdrHistogram percentiles printed like perftest (typical = p50)
 * </pre>
 *
 * Depends only on the transport SPI (and HdrHistogram); must never depend on the protocol, memory-pool or kvstore
 * modules, so it measures the transport and nothing else.
 */
package io.rdmakv.bench.perf;

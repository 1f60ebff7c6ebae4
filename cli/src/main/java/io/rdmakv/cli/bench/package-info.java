/**
 * {@code rdmakv bench}: a YCSB-style load generator that drives rdmakv, redis-server (RESP) and memcached (text
 * protocol) with the same key choice, mixes, pipelining and measurement, so their numbers compare.
 *
 * <pre>
 *   BenchCommand        picocli options -&gt; BenchSettings
 *     '-- BenchRunner   load phase, warm-up, measured phase on N threads over M connections, K in flight each
 *           |-- Workload + KeyChooser (uniform, scrambled Zipfian, latest) + ZipfianGenerator
 *           |-- KvDriver -&gt; DriverConnection   RdmakvDriver (KvClient), RespDriver, MemcachedDriver
 *           |-- ServerCpu   the server's process CPU time from /proc (given or found by its listening port)
 *           '-- BenchReport table per operation, GET service counters, CPU per op, --json, .hgrm
 * </pre>
 *
 * Must never depend on server internals: it is a client, and the only server-side figure it reads is the
 * process CPU time the operating system reports.
 */
package io.rdmakv.cli.bench;

/**
 * JMH microbenchmarks of rdmakv's hot paths: extent verification (CRC32C per KiB on heap, direct and pool memory),
 * message codecs, the extent allocator, a TCP transport round trip and, where an RDMA device exists, verbs post/poll.
 * Benchmarks print numbers; nothing here is a test and nothing fails a build on timing.
 *
 * <p>Depends on memory-pool, protocol and transport (it measures them); nothing may depend on it.
 */
package io.rdmakv.bench;

/**
 * The on-pool layout: what the server writes into its registered pool and clients read with one-sided RDMA reads.
 *
 * <pre>
 *   pool: | PoolHeaderFlyweight (4096 B) | IndexBucketFlyweight x bucketCount (64 B each) | ValueExtentFlyweight ... |
 *   key --KeyHash--&gt; primary/secondary bucket --IndexEntry(fingerprint)--&gt; extent offset/length --verify--&gt; value
 * </pre>
 *
 * The writer publishes an extent by one ordered 8-byte slot store, and marks an extent RETIRED (its state word, outside
 * the CRC) before it publishes whatever supersedes it; the reader trusts nothing it read: slots are checked against
 * the {@link io.rdmakv.protocol.layout.PoolGeometry} and extents by length, CRC32C and key (and, for a read that
 * skipped the index, version and state word).
 * Little-endian throughout. Depends only on Agrona and the JDK.
 * Must never depend on: the transport, memory-pool or kvstore modules, Netty, JNA, RocksDB.
 */
package io.rdmakv.protocol.layout;

/**
 * The server's memory pool: one anonymous mapping, locked in RAM ({@code mlock} via JNA, optional huge pages),
 * that a transport registers once for remote read, viewed as Agrona {@link org.agrona.concurrent.UnsafeBuffer}
 * partitions because one view holds at most 2 GiB.
 *
 * <pre>
 *   PinnedArena       mmap + mlock/munlock + munmap; RLIMIT_MEMLOCK precheck (MemlockLimit, MemlockLimitException)
 *     '-- ArenaPartitions   power-of-two partitions, offset -&gt; (partition, offset in partition)
 *   alloc.ExtentAllocator   64-byte-aligned extents inside the arena: small ones from size-class slabs, large ones
 *                           as runs of pages, all from one page heap
 *     '-- alloc.EpochReclaimer  grace period before a freed extent is reused
 * </pre>
 *
 * Depends only on JNA, Agrona and slf4j-api. Must never depend on the transport, protocol or kvstore modules:
 * they depend on it, and the arena knows nothing about what is stored in it.
 */
package io.rdmakv.pool;

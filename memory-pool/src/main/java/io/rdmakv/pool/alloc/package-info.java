/**
 * Allocation of value extents inside the pinned arena: {@link io.rdmakv.pool.alloc.SizeClasses} (64-byte units,
 * geometric with 8 sub-steps), {@link io.rdmakv.pool.alloc.ExtentAllocator} (slabs, free lists, status sentinels,
 * single-writer) and {@link io.rdmakv.pool.alloc.EpochReclaimer} (grace period before reuse, injectable clock).
 *
 * Works on arena offsets only, never on memory: it neither reads nor writes the pool. Must never depend on the
 * transport, protocol or kvstore modules, nor on native calls.
 */
package io.rdmakv.pool.alloc;

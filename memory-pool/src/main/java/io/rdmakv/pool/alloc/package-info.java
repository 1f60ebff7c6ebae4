/**
 * Allocation of value extents inside the pinned arena, in three layers under one entry point:
 *
 * <pre>
 *   ExtentAllocator     routes a request (small: a size class; large: whole pages), checks frees, status codes,
 *    |                  defers reuse through the EpochReclaimer (grace period, injectable clock), eviction windows
 *    +-- SmallExtentSlabs   size classes (SizeClasses: 64-byte units, 8 sub-steps per doubling) carved from slabs
 *    |                      of lcm(class, page) bytes, one class per slab; per-unit allocated/reusable bits
 *    '-- PageRunHeap        the range as pages; free runs in TLSF-style size bins, merged when freed, never across
 *                           a partition boundary
 * </pre>
 *
 * Single-writer. Works on arena offsets only, never on memory: it neither reads nor writes the pool. Must never
 * depend on the transport, protocol or kvstore modules, nor on native calls.
 */
package io.rdmakv.pool.alloc;

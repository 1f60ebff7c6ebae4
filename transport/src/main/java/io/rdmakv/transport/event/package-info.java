/**
 * Sleeping without losing a wake-up: an eventfd for signals from other threads and {@code poll(2)} over it and a
 * transport's armable event source (a verbs completion channel), through the transport's libc binding
 * ({@code io.rdmakv.transport.libc}). Used by {@link io.rdmakv.transport.progress.WakeupIdleStrategy} for
 * {@link io.rdmakv.transport.ProgressModel#ARMABLE} workers. Knows nothing of verbs.
 */
package io.rdmakv.transport.event;

/**
 * The transport's libc binding ({@link io.rdmakv.transport.libc.LibC}, JNA direct mapping), its data-path calls in
 * the binding chosen once per process ({@link io.rdmakv.transport.libc.LibcCalls},
 * {@link io.rdmakv.transport.libc.NativeBindings}: JNA, or FFM on JDK 22+) and the ABI values
 * its callers use ({@link io.rdmakv.transport.libc.LibCLayout}, checked against the C headers by a test). Used by
 * {@code event} (eventfd, poll) and {@code shm} (memory files, descriptor passing, epoll); loaded on first use, so a
 * process that never uses them loads neither JNA's native part nor libc through it. Knows no transport.
 */
package io.rdmakv.transport.libc;

/**
 * The shm transport: peers on one host. One-sided reads copy out of the peer's registered memory file, mapped
 * read-only after the peer checked the remote key's token (the descriptor travels over a Unix socket with
 * {@code SCM_RIGHTS}, never by a path); send/recv uses two Agrona ring buffers in a shared memory file per
 * connection. Only memory mapped shared from a {@code memfd} can be registered.
 */
package io.rdmakv.transport.shm;

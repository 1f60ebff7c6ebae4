/**
 * The server's counters: a stable enum of descriptors and lock-free storage shared by the request thread, the
 * control plane and readers. Must never depend on any other server package, the transport or Netty.
 */
package io.rdmakv.server.counters;

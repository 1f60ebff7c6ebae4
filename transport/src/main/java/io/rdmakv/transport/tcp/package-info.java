/**
 * The TCP transport: the fallback when no HCA is present. Netty carries length-prefixed frames
 * ({@link io.rdmakv.transport.tcp.TcpFrames}); one-sided reads are <em>emulated</em> by the target's transport in its
 * Netty handler, below any application code and without the target's worker thread (like UCX's software RMA), after
 * checking the remote key's region id, secret token and bounds.
 *
 * <p>Threads: Netty I/O threads decode frames, answer emulated reads and hand completions and received messages to
 * the owning {@link io.rdmakv.transport.tcp.TcpWorker} through bounded queues; user callbacks run only in
 * {@link io.rdmakv.transport.tcp.TcpWorker#doWork()}.
 *
 * <p>Must never depend on: the verbs transport, the protocol, memory-pool or kvstore modules.
 */
package io.rdmakv.transport.tcp;

/**
 * The rdmakv transport layer, in the style of UCX: usable on its own, with no knowledge of the key-value store.
 *
 * <pre>
 *   TransportProvider   one per transport (tcp, verbs); availability probe and capabilities (like UCX's iface)
 *        |  open(config)
 *   Transport           an opened transport: owns the MemoryDomain and creates Workers (like ucp_context + md)
 *        |-- MemoryDomain     registers address ranges once, packs RemoteKeys (like uct_md)
 *        '-- Worker           an Agrona Agent: progress() polls completions and runs callbacks (like ucp_worker)
 *               '-- Endpoint  a connection to one peer: send(...) and one-sided read(...) (like ucp_ep)
 * </pre>
 *
 * <p>Rules every transport keeps:
 * <ul>
 *   <li>Callbacks (completions, receives, connects, disconnects) run only on the worker's progress thread: the
 *       thread that calls {@link io.rdmakv.transport.Worker#doWork()} for a polled worker, the transport's I/O
 *       thread for a driven event-driven one ({@link io.rdmakv.transport.WorkerProgress}); operations may be started
 *       from any thread.</li>
 *   <li>There is no remote write: memory is registered for remote <em>read</em> only.</li>
 *   <li>Back-pressure is a status ({@link io.rdmakv.transport.TransportStatus#BACK_PRESSURED}), never an
 *       exception and never a blocking call; operations beyond the transport's credits wait in a bounded pending
 *       queue and are posted as credits return.</li>
 *   <li>Registration never happens on the data path; {@link io.rdmakv.transport.MemoryDomain#registrationCount()}
 *       lets tests prove it.</li>
 * </ul>
 * Must never depend on: the protocol, memory-pool or kvstore modules.
 */
package io.rdmakv.transport;

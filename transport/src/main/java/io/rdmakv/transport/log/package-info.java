/**
 * Log lines a peer can cause (a malformed frame, a refused connection, a wrong credential) without flooding the log:
 * {@link io.rdmakv.transport.log.RateLimitedLog} lets a burst through per call site and then counts what it
 * suppresses, reporting the count on the next line it lets through.
 *
 * <p>Must never depend on: a concrete transport, the protocol, memory-pool or kvstore modules.
 */
package io.rdmakv.transport.log;

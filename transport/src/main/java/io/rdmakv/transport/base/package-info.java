/**
 * The part of an endpoint every transport shares (UCX's {@code src/uct/base}, Netty's {@code AbstractChannel}): its life
 * ({@link io.rdmakv.transport.base.EndpointLifecycle}: connecting, connected, closing, closed, one atomic state
 * machine), argument checks ({@link io.rdmakv.transport.base.OperationChecks}), and the operation window
 * ({@link io.rdmakv.transport.base.OperationWindow}: request ids, pooled operations, deadlines on an injectable clock,
 * completing every outstanding operation exactly once when the endpoint goes down) with its parts by job: the
 * {@link io.rdmakv.transport.base.Credits}, the bounded {@link io.rdmakv.transport.base.PendingOperations} queue
 * (back-pressure) and the {@link io.rdmakv.transport.base.InflightTable} by request id.
 * {@link io.rdmakv.transport.base.AbstractEndpoint} puts them under an {@link io.rdmakv.transport.Endpoint}, delivers
 * {@code onConnected} and {@code onDisconnected} exactly once and calls the transport's hooks ({@code doPostSend},
 * {@code doPostRead}, {@code doTeardown}); each transport (tcp, shm, verbs) keeps only its wire. Must never depend on a
 * transport package.
 */
package io.rdmakv.transport.base;

/**
 * The rdmakv protocol: what the server writes into its registered pool and what clients read one-sided
 * ({@link io.rdmakv.protocol.layout}), and the messages both sides exchange ({@link io.rdmakv.protocol.wire}).
 * This package holds what both share: {@link io.rdmakv.protocol.ProtocolException} with its
 * {@link io.rdmakv.protocol.ErrorCode}, and {@link io.rdmakv.protocol.ProtocolLimits}.
 *
 * <p>Everything is little-endian. Depends only on Agrona and the JDK.
 * Must never depend on: the transport, memory-pool or kvstore modules, Netty, JNA, RocksDB.
 */
package io.rdmakv.protocol;

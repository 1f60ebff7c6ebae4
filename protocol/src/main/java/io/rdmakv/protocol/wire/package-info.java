/**
 * Messages: the data-plane requests and responses carried by the transport's send/recv
 * ({@link io.rdmakv.protocol.wire.MessageHeaderFlyweight} and its subclasses, entry point
 * {@link io.rdmakv.protocol.wire.MessageDecoder}; ATTACH opens every data endpoint with a WELCOME's session ticket),
 * and the control-plane handshake frames carried by Netty
 * ({@link io.rdmakv.protocol.wire.ControlFrameCodec}: HELLO, WELCOME, REJECT).
 *
 * <p>Decoders never trust a length field: every malformed input is a typed
 * {@link io.rdmakv.protocol.ProtocolException}, never an index error, a hang or a huge allocation.
 * Little-endian throughout. Depends only on Agrona, the JDK and {@link io.rdmakv.protocol.layout}.
 * Must never depend on: the transport, memory-pool or kvstore modules, Netty, JNA, RocksDB.
 */
package io.rdmakv.protocol.wire;

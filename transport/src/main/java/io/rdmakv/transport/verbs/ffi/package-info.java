/**
 * The raw libibverbs binding through JNA: exported functions ({@link io.rdmakv.transport.verbs.ffi.LibIbverbs}),
 * the inline data-path calls through {@code ibv_context.ops} ({@link io.rdmakv.transport.verbs.ffi.VerbsOps}),
 * struct layouts checked against the C header ({@link io.rdmakv.transport.verbs.ffi.VerbsLayout}), and flyweights
 * that keep work requests and completions in native memory allocated once.
 *
 * <p>Must never depend on: the transport SPI or anything above it; Netty. It knows C structs, not endpoints.
 */
package io.rdmakv.transport.verbs.ffi;

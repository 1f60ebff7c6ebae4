/**
 * The raw libibverbs binding: exported functions through JNA ({@link io.rdmakv.transport.verbs.ffi.LibIbverbs}),
 * the inline data-path calls through {@code ibv_context.ops} and the completion channel's events
 * ({@link io.rdmakv.transport.verbs.ffi.VerbsOps}: JNA, or FFM on JDK 22+ from the jar's {@code META-INF/versions/22}),
 * struct layouts checked against the C header ({@link io.rdmakv.transport.verbs.ffi.VerbsLayout}), and flyweights
 * that keep work requests and completions in native memory allocated once.
 *
 * <p>Must never depend on: the transport SPI or anything above it; Netty. It knows C structs, not endpoints.
 */
package io.rdmakv.transport.verbs.ffi;

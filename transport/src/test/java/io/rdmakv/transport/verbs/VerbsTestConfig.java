package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;

import java.time.Duration;

/**
 * The conformance suite's configuration, with the connect and operation timeouts widened for SoftRoCE under
 * software CPU emulation (qemu TCG), where creating, registering and moving a QP through its states takes seconds
 * on a loaded host, and {@value #MAX_ENDPOINTS} endpoints per worker: the suite never has more open on one worker,
 * and a small pool keeps its hundred open/close cycles (each registering two workers' buffers) cheap. Everything
 * else is the suite's own configuration.
 */
final class VerbsTestConfig
{
    static final int MAX_ENDPOINTS = 4;

    private VerbsTestConfig()
    {
    }

    static TransportConfig adapt(final TransportConfig suite)
    {
        return suite.toBuilder()
            .connectTimeout(max(suite.connectTimeout(), Duration.ofSeconds(15)))
            .operationTimeout(max(suite.operationTimeout(), Duration.ofSeconds(20)))
            .property("verbs.maxEndpoints", Integer.toString(MAX_ENDPOINTS))
            .build();
    }

    private static Duration max(final Duration a, final Duration b)
    {
        return a.compareTo(b) >= 0 ? a : b;
    }
}

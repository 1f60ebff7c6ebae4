package io.rdmakv.transport.verbs;

import io.rdmakv.transport.TransportConfig;

import java.time.Duration;

/**
 * The conformance suite's configuration for SoftRoCE under software CPU emulation (qemu TCG), where creating,
 * registering and moving a QP through its states takes seconds on a loaded host:
 * <ul>
 *   <li>the connect and operation timeouts widened;</li>
 *   <li>the server's handshake timeout ({@code verbs.handshakeTimeoutMs}) widened past the client's connect timeout,
 *   unless the suite sets its own: the set-up connect of a cold JVM took 11-17 s in the guest, and once, at host
 *   load 4-10 in a 3 GiB guest, the server closed it at the default 5 s;</li>
 *   <li>{@value #MAX_ENDPOINTS} endpoints per worker: the suite never has more open on one worker, and a small pool
 *   keeps its hundred open/close cycles (each registering two workers' buffers) cheap.</li>
 * </ul>
 * Everything else is the suite's own configuration.
 */
final class VerbsTestConfig
{
    static final int MAX_ENDPOINTS = 4;
    /** The server's handshake timeout in the suite: twice the widened connect timeout. */
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(30);

    private VerbsTestConfig()
    {
    }

    static TransportConfig adapt(final TransportConfig suite)
    {
        return suite.toBuilder()
            .connectTimeout(max(suite.connectTimeout(), Duration.ofSeconds(15)))
            .operationTimeout(max(suite.operationTimeout(), Duration.ofSeconds(20)))
            .property("verbs.maxEndpoints", Integer.toString(MAX_ENDPOINTS))
            .property("verbs.handshakeTimeoutMs", suite.property("verbs.handshakeTimeoutMs",
                Long.toString(HANDSHAKE_TIMEOUT.toMillis())))
            .build();
    }

    private static Duration max(final Duration a, final Duration b)
    {
        return a.compareTo(b) >= 0 ? a : b;
    }
}

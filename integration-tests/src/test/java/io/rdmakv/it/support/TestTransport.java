package io.rdmakv.it.support;

import java.time.Duration;

/**
 * The transport the end-to-end tests run on: {@code tcp} by default (every machine has it), another one with
 * {@code -Drdmakv.it.transport=verbs} (e.g. inside the SoftRoCE guest, where the same suites then prove the
 * invariants over real one-sided reads). Servers and clients of a test always use the same one.
 */
public final class TestTransport
{
    /**
     * How long test clients wait for a server's handshake: servers in tests are cold JVMs limited to C1, and in the
     * SoftRoCE guest they run under emulation, where 5 s (the client's default) is not always enough.
     */
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(30);

    private TestTransport()
    {
    }

    public static String name()
    {
        return System.getProperty("rdmakv.it.transport", "tcp");
    }
}

package io.rdmakv.it.support;

/**
 * The transport the end-to-end tests run on: {@code tcp} by default (every machine has it), another one with
 * {@code -Drdmakv.it.transport=verbs} (e.g. inside the SoftRoCE guest, where the same suites then prove the
 * invariants over real one-sided reads). Servers and clients of a test always use the same one.
 */
public final class TestTransport
{
    private TestTransport()
    {
    }

    public static String name()
    {
        return System.getProperty("rdmakv.it.transport", "tcp");
    }
}

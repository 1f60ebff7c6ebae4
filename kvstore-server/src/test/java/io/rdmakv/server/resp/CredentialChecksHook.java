package io.rdmakv.server.resp;

import java.util.concurrent.CountDownLatch;

/** Tests outside this package: hold RESP's password checks at a gate ({@link CredentialChecks#testGate}). */
public final class CredentialChecksHook
{
    private CredentialChecksHook()
    {
    }

    public static void gate(final CountDownLatch gate)
    {
        CredentialChecks.testGate = gate;
    }
}

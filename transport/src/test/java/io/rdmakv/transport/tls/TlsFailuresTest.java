package io.rdmakv.transport.tls;

import org.junit.jupiter.api.Test;

import javax.net.ssl.SSLHandshakeException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertificateExpiredException;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sentence a failed handshake is described by names why a certificate was refused. */
class TlsFailuresTest
{
    @Test
    void shouldSayACertificateExpiredWhateverTheJdkCallsIt()
    {
        // The JDK's PKIX validator says only "validity check failed", with the reason EXPIRED on the exception.
        final SSLHandshakeException byReason = handshake(new CertPathValidatorException("validity check failed",
            null, null, -1, CertPathValidatorException.BasicReason.EXPIRED));
        final String a = TlsFailures.describe("node 1", byReason);
        assertTrue(a.contains("not trusted") && a.contains("expired"), a);

        final SSLHandshakeException byCause = handshake(new CertificateExpiredException("NotAfter: yesterday"));
        final String b = TlsFailures.describe("node 1", byCause);
        assertTrue(b.contains("not trusted") && b.contains("expired"), b);

        final String c = TlsFailures.describe("node 1", handshake(new CertPathValidatorException("validity check " +
            "failed", null, null, -1, CertPathValidatorException.BasicReason.NOT_YET_VALID)));
        assertTrue(c.contains("not yet valid"), c);
    }

    private static SSLHandshakeException handshake(final Throwable cause)
    {
        final SSLHandshakeException e = new SSLHandshakeException("PKIX path validation failed: " + cause);
        e.initCause(cause);
        return e;
    }
}

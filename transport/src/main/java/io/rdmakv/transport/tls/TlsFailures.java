package io.rdmakv.transport.tls;

import io.netty.handler.ssl.NotSslRecordException;

import javax.net.ssl.SSLException;
import javax.net.ssl.SSLHandshakeException;
import java.nio.channels.ClosedChannelException;
import java.security.cert.CertificateException;

/** Says why a TLS connection to a peer failed, in terms of what to fix. */
public final class TlsFailures
{
    private TlsFailures()
    {
    }

    /** A sentence naming {@code peer}, the cause and its likely fix. */
    public static String describe(final Object peer, final Throwable cause)
    {
        final String detail = cause == null ? "closed" : cause.getMessage() == null ? cause.getClass().getSimpleName() :
            cause.getMessage();
        if (cause instanceof NotSslRecordException || detail.contains("Unsupported or unrecognized SSL message"))
        {
            return "TLS with " + peer + " failed: it answered in plaintext (it has no TLS: tls.certFile unset)";
        }
        if (cause == null || cause instanceof ClosedChannelException ||
            (cause instanceof SSLException && !(cause instanceof SSLHandshakeException) && detail.contains("closed")))
        {
            return "TLS with " + peer + " failed: it closed the connection during the handshake (it may not speak " +
                "TLS, or it refused this side's certificate)";
        }
        if (hasCause(cause, java.security.cert.CertificateExpiredException.class) ||
            reasonIs(cause, java.security.cert.CertPathValidatorException.BasicReason.EXPIRED))
        {
            return "TLS with " + peer + " failed: its certificate is not trusted: it has expired (" + detail +
                "; renew it: the node reloads tls.certFile when it changes)";
        }
        if (hasCause(cause, java.security.cert.CertificateNotYetValidException.class) ||
            reasonIs(cause, java.security.cert.CertPathValidatorException.BasicReason.NOT_YET_VALID))
        {
            return "TLS with " + peer + " failed: its certificate is not trusted: it is not yet valid (" + detail +
                "; is this host's clock right?)";
        }
        if (hasCause(cause, CertificateException.class))
        {
            return "TLS with " + peer + " failed: its certificate is not trusted (" + detail + "; is the CA file the " +
                "one that signed it, and does it name the host dialled?)";
        }
        return "TLS with " + peer + " failed: " + detail;
    }

    /** Whether a certificate path check in {@code t}'s causes failed for {@code reason}. */
    private static boolean reasonIs(final Throwable t,
        final java.security.cert.CertPathValidatorException.BasicReason reason)
    {
        for (Throwable c = t; c != null; c = c.getCause())
        {
            if (c instanceof java.security.cert.CertPathValidatorException v && v.getReason() == reason)
            {
                return true;
            }
        }
        return false;
    }

    private static boolean hasCause(final Throwable t, final Class<? extends Throwable> type)
    {
        for (Throwable c = t; c != null; c = c.getCause())
        {
            if (type.isInstance(c))
            {
                return true;
            }
        }
        return false;
    }
}

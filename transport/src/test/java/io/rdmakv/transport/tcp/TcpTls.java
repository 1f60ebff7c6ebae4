package io.rdmakv.transport.tcp;

import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.tls.TestCertificates;
import io.rdmakv.transport.tls.TlsSettings;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** One test CA and a certificate it signs for 127.0.0.1, made once per test JVM, for the tcp suites over TLS. */
final class TcpTls
{
    static final Path DIR;
    static final TestCertificates CA;
    static final TestCertificates.Pem PEER;

    static
    {
        try
        {
            DIR = Files.createTempDirectory("rdmakv-tcp-tls");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        CA = TestCertificates.authority(DIR, "tcp");
        PEER = CA.issue("peer");
    }

    private TcpTls()
    {
    }

    /** {@code base} with TLS on: both sides present {@link #PEER} and trust {@link #CA}. */
    static TransportConfig on(final TransportConfig base)
    {
        final TransportConfig.Builder b = base.toBuilder();
        TlsSettings.of(PEER.cert(), PEER.key(), CA.caFile(), TlsSettings.Auth.NONE).properties().forEach(b::property);
        return b.build();
    }
}

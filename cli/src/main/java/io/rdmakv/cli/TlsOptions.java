package io.rdmakv.cli;

import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.transport.tls.TlsSettings;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/**
 * TLS 1.3 to the nodes, for every command that connects to one ({@code docs/security.md}): the CA that signs the
 * nodes' certificates and, for nodes that ask ({@code tls.clientAuth}), this client's certificate and key. A picocli
 * mixin.
 */
public final class TlsOptions
{
    @Option(names = "--tls-ca", paramLabel = "FILE",
        description = "Speak TLS 1.3 to the nodes, trusting the CA certificates in FILE (PEM).")
    Path ca;

    @Option(names = "--tls-cert", paramLabel = "FILE",
        description = "This client's certificate chain (PEM), for nodes with tls.clientAuth; with --tls-key.")
    Path cert;

    @Option(names = "--tls-key", paramLabel = "FILE", description = "The private key of --tls-cert (PEM, PKCS#8).")
    Path key;

    /** Sets the client's TLS as the flags say (plaintext without any). */
    public void applyTo(final KvClientBuilder builder)
    {
        apply(builder, settings());
    }

    /** Sets {@code builder}'s TLS to {@code tls}. */
    public static void apply(final KvClientBuilder builder, final TlsSettings tls)
    {
        builder.tls(tls.caFile(), tls.certFile(), tls.keyFile());
    }

    /**
     * The settings the flags give ({@link TlsSettings#OFF} without any).
     *
     * @throws IllegalArgumentException (a usage error) for --tls-cert without --tls-key or the reverse.
     */
    public TlsSettings settings()
    {
        if ((cert == null) != (key == null))
        {
            throw new IllegalArgumentException("--tls-cert and --tls-key go together");
        }
        return TlsSettings.of(cert, key, ca, TlsSettings.Auth.NONE);
    }
}

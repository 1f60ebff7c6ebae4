package io.rdmakv.transport.tls;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * TLS 1.3 for the Netty connections of rdmakv (the control plane and the tcp transport), from PEM files: this side's
 * certificate chain ({@value #CERT_FILE}) and PKCS#8 private key ({@value #KEY_FILE}), the CA that signs the peers'
 * certificates ({@value #CA_FILE}), and whether an accepting side asks the connecting one for a certificate
 * ({@value #CLIENT_AUTH}: none, optional, required). The same names are node settings and transport properties.
 * The JDK's provider; TLSv1.3 only. A connecting side checks the peer's certificate against the CA (the JDK's trust
 * store without one) and its name against the host it dialled.
 */
public final class TlsSettings
{
    public static final String CERT_FILE = "tls.certFile";
    public static final String KEY_FILE = "tls.keyFile";
    public static final String CA_FILE = "tls.caFile";
    public static final String CLIENT_AUTH = "tls.clientAuth";
    /** The one protocol spoken. */
    public static final String PROTOCOL = "TLSv1.3";
    /** TLS off. */
    public static final TlsSettings OFF = new TlsSettings(null, null, null, Auth.NONE);

    /** Whether an accepting side asks for the connecting side's certificate. */
    public enum Auth
    {
        NONE(ClientAuth.NONE), OPTIONAL(ClientAuth.OPTIONAL), REQUIRED(ClientAuth.REQUIRE);

        private final ClientAuth netty;

        Auth(final ClientAuth netty)
        {
            this.netty = netty;
        }

        /** none | optional | required, any case. */
        public static Auth parse(final String text)
        {
            try
            {
                return valueOf(text.trim().toUpperCase(Locale.ROOT));
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException(CLIENT_AUTH + " must be none, optional or required: " + text, ex);
            }
        }
    }

    private final Path certFile;
    private final Path keyFile;
    private final Path caFile;
    private final Auth clientAuth;

    private TlsSettings(final Path certFile, final Path keyFile, final Path caFile, final Auth clientAuth)
    {
        this.certFile = certFile;
        this.keyFile = keyFile;
        this.caFile = caFile;
        this.clientAuth = Objects.requireNonNull(clientAuth, "clientAuth");
        if ((certFile == null) != (keyFile == null))
        {
            throw new IllegalArgumentException(CERT_FILE + " and " + KEY_FILE + " go together: " + CERT_FILE + "=" +
                certFile + ", " + KEY_FILE + "=" + keyFile);
        }
        if (clientAuth != Auth.NONE && caFile == null)
        {
            throw new IllegalArgumentException(CLIENT_AUTH + "=" + clientAuth.name().toLowerCase(Locale.ROOT) +
                " needs " + CA_FILE + " (the CA that signs the clients' certificates)");
        }
    }

    /**
     * The settings a node or a client is given.
     *
     * @param certFile   this side's certificate chain (PEM), or null.
     * @param keyFile    its private key (PEM, PKCS#8), with {@code certFile}.
     * @param caFile     the CA certificates that sign the peers' (PEM), or null.
     * @param clientAuth what an accepting side asks of a connecting one; not NONE only with a CA.
     * @throws IllegalArgumentException naming the setting, for a combination that cannot work.
     */
    public static TlsSettings of(final Path certFile, final Path keyFile, final Path caFile, final Auth clientAuth)
    {
        return certFile == null && keyFile == null && caFile == null && clientAuth == Auth.NONE ? OFF :
            new TlsSettings(certFile, keyFile, caFile, clientAuth);
    }

    /** From the settings named by {@link #CERT_FILE} and the rest; absent ones are off. */
    public static TlsSettings of(final Map<String, String> settings)
    {
        final String auth = settings.get(CLIENT_AUTH);
        return of(path(settings.get(CERT_FILE)), path(settings.get(KEY_FILE)), path(settings.get(CA_FILE)),
            auth == null || auth.isBlank() ? Auth.NONE : Auth.parse(auth));
    }

    private static Path path(final String value)
    {
        return value == null || value.isBlank() ? null : Path.of(value.trim());
    }

    /** True when any file is set: every connection of this side speaks TLS. */
    public boolean enabled()
    {
        return certFile != null || caFile != null;
    }

    public Path certFile()
    {
        return certFile;
    }

    public Path keyFile()
    {
        return keyFile;
    }

    public Path caFile()
    {
        return caFile;
    }

    public Auth clientAuth()
    {
        return clientAuth;
    }

    /** These settings as properties ({@link #CERT_FILE} = path, ...), the unset ones left out. */
    public Map<String, String> properties()
    {
        final Map<String, String> m = new LinkedHashMap<>();
        if (certFile != null)
        {
            m.put(CERT_FILE, certFile.toString());
            m.put(KEY_FILE, keyFile.toString());
        }
        if (caFile != null)
        {
            m.put(CA_FILE, caFile.toString());
        }
        if (clientAuth != Auth.NONE)
        {
            m.put(CLIENT_AUTH, clientAuth.name().toLowerCase(Locale.ROOT));
        }
        return m;
    }

    /**
     * The context of an accepting side (a listener, the control port).
     *
     * @throws IllegalArgumentException naming the file, when there is no certificate or a file cannot be read.
     */
    public SslContext serverContext()
    {
        if (certFile == null)
        {
            throw new IllegalArgumentException("TLS is on (" + CA_FILE + "=" + caFile + ") but an accepting side " +
                "needs its own certificate: set " + CERT_FILE + " and " + KEY_FILE);
        }
        return build(() ->
        {
            final SslContextBuilder b = SslContextBuilder.forServer(certFile.toFile(), keyFile.toFile())
                .clientAuth(clientAuth.netty);
            return caFile == null ? b : b.trustManager(caFile.toFile());
        });
    }

    /**
     * The context of a connecting side; with a certificate it is offered to a node that asks for one.
     *
     * @throws IllegalArgumentException naming the file, when one cannot be read.
     */
    public SslContext clientContext()
    {
        return build(() ->
        {
            final SslContextBuilder b = SslContextBuilder.forClient().endpointIdentificationAlgorithm("HTTPS");
            if (certFile != null)
            {
                b.keyManager(certFile.toFile(), keyFile.toFile());
            }
            return caFile == null ? b : b.trustManager(caFile.toFile());
        });
    }

    /**
     * A blocking socket connected to {@code address}: plaintext when TLS is off, else a TLS 1.3 socket whose handshake
     * is done (the peer's certificate checked against the CA and the host dialled), for the few blocking exchanges
     * (a node's HELLO to a peer, the backup tool's).
     *
     * @throws IOException when the peer cannot be reached, or the handshake fails ({@link TlsFailures} wording).
     */
    public Socket connect(final InetSocketAddress address, final int timeoutMillis) throws IOException
    {
        final Socket plain = new Socket();
        try
        {
            plain.connect(address, timeoutMillis);
            plain.setSoTimeout(timeoutMillis);
            if (!enabled())
            {
                return plain;
            }
            final SSLContext context = ((JdkSslContext)clientContext()).context();
            final SSLSocket tls = (SSLSocket)context.getSocketFactory().createSocket(plain, address.getHostString(),
                address.getPort(), true);
            final SSLParameters parameters = tls.getSSLParameters();
            parameters.setEndpointIdentificationAlgorithm("HTTPS");
            parameters.setProtocols(new String[] {PROTOCOL});
            tls.setSSLParameters(parameters);
            try
            {
                tls.startHandshake();
            }
            catch (final SSLException ex)
            {
                throw new SSLException(TlsFailures.describe(address, ex), ex);
            }
            return tls;
        }
        catch (final IOException | RuntimeException ex)
        {
            plain.close();
            throw ex;
        }
    }

    private interface Configure
    {
        SslContextBuilder builder() throws Exception;
    }

    private SslContext build(final Configure configure)
    {
        for (final Path p : new Path[] {certFile, keyFile, caFile})
        {
            if (p != null && !Files.isReadable(p))
            {
                throw new IllegalArgumentException("TLS: cannot read " + p + (Files.exists(p) ? " (permissions)" :
                    " (no such file)"));
            }
        }
        try
        {
            return configure.builder().sslProvider(SslProvider.JDK).protocols(PROTOCOL).build();
        }
        catch (final Exception ex)
        {
            throw new IllegalArgumentException("TLS: cannot load " + this + ": " + ex.getMessage(), ex);
        }
    }

    @Override
    public String toString()
    {
        return enabled() ? "TLS " + properties() : "TLS off";
    }
}

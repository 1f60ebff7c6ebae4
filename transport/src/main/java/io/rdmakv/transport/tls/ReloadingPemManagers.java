package io.rdmakv.transport.tls;

import io.rdmakv.transport.log.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedKeyManager;
import javax.net.ssl.X509ExtendedTrustManager;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Principal;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A key manager and a trust manager over the PEM files of {@link TlsSettings} that follow the files without a restart,
 * for TLS stacks that take managers rather than contexts made per connection ({@link ReloadingTls} serves those):
 * Ratis' gRPC channels build their SSL context once, and each new handshake then asks these managers, which answer from
 * the files as they are now. Established connections keep what they negotiated.
 *
 * <p>The files are compared by content at the start of each handshake: the key manager when it chooses an alias, the
 * trust manager when it checks a peer. One handshake sees one certificate and key together: each loaded generation has
 * its own alias, and the chain and key are looked up by the alias chosen, so a change between the two lookups cannot
 * pair a new certificate with an old key. A change that does not load (a half-written file, a key that does not match
 * the certificate) keeps the managers in use, with a WARN, as {@link ReloadingTls} does. Thread-safe.
 */
public final class ReloadingPemManagers
{
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingPemManagers.class);
    private static final RateLimitedLog BROKEN = RateLimitedLog.of(LOG);
    private static final Pattern PKCS8 = Pattern.compile(
        "-----BEGIN PRIVATE KEY-----([A-Za-z0-9+/=\\s]+)-----END PRIVATE KEY-----");
    private static final char[] NO_PASSWORD = new char[0];
    private static final String ALIAS = "rdmakv-";

    private final TlsSettings settings;
    private final X509ExtendedKeyManager keyManager = new KeyManager();
    private final X509ExtendedTrustManager trustManager = new TrustManager();
    private byte[][] contents;
    private int generation;
    /** The current generation's key manager and the one before it (a handshake that chose its alias just before). */
    private final Map<String, X509ExtendedKeyManager> keys = new HashMap<>();
    private X509ExtendedTrustManager trust;

    /**
     * Load the files now.
     *
     * @param settings TLS on with a certificate, its key and a CA.
     * @throws IllegalArgumentException when a file is missing, cannot be read or does not load (at start: the
     *                                  caller's error, naming the file).
     */
    public ReloadingPemManagers(final TlsSettings settings)
    {
        if (!settings.enabled() || settings.certFile() == null || settings.keyFile() == null ||
            settings.caFile() == null)
        {
            throw new IllegalArgumentException("reloading managers need " + TlsSettings.CERT_FILE + ", " +
                TlsSettings.KEY_FILE + " and " + TlsSettings.CA_FILE + "; set: " + settings.properties().keySet());
        }
        this.settings = settings;
        try
        {
            final byte[][] now = read();
            load(now);
            contents = now;
        }
        catch (final IOException | GeneralSecurityException | RuntimeException ex)
        {
            throw new IllegalArgumentException("TLS files do not load (" + settings.certFile() + ", " +
                settings.keyFile() + ", " + settings.caFile() + "): " + ex.getMessage(), ex);
        }
    }

    /** Presents this side's certificate, as the files are at each handshake. */
    public X509ExtendedKeyManager keyManager()
    {
        return keyManager;
    }

    /** Checks the peer's chain against the CA file as it is at each handshake. */
    public X509ExtendedTrustManager trustManager()
    {
        return trustManager;
    }

    /** The generation of the files in use: 1 at start, one more per change that loaded (tests, logs). */
    public synchronized int generation()
    {
        return generation;
    }

    private synchronized String currentAlias()
    {
        refresh();
        return ALIAS + generation;
    }

    private synchronized X509ExtendedKeyManager keysOf(final String alias)
    {
        return alias == null ? null : keys.get(alias);
    }

    private synchronized X509ExtendedTrustManager currentTrust()
    {
        refresh();
        return trust;
    }

    private void refresh()
    {
        final byte[][] now;
        try
        {
            now = read();
        }
        catch (final IOException ex)
        {
            BROKEN.warn("TLS files unreadable, the certificates in use stay: {}", ex.toString());
            return;
        }
        if (Arrays.deepEquals(now, contents))
        {
            return;
        }
        try
        {
            load(now);
            contents = now;
            LOG.info("TLS files changed: new handshakes of the coordination group use them (generation {}: {}, {}, {})",
                generation, settings.certFile(), settings.keyFile(), settings.caFile());
        }
        catch (final IOException | GeneralSecurityException | RuntimeException ex)
        {
            contents = now; // tried once per content: a broken file is not parsed again on every handshake
            BROKEN.warn("TLS files changed but do not load, the certificates in use stay: {}", ex.toString());
        }
    }

    private void load(final byte[][] files) throws IOException, GeneralSecurityException
    {
        final X509Certificate[] chain = certificates(files[0]).toArray(new X509Certificate[0]);
        if (chain.length == 0)
        {
            throw new CertificateException("no certificate in " + settings.certFile());
        }
        final PrivateKey key = privateKey(files[1], chain[0].getPublicKey().getAlgorithm());
        final Collection<X509Certificate> cas = certificates(files[2]);
        if (cas.isEmpty())
        {
            throw new CertificateException("no certificate in " + settings.caFile());
        }
        final int next = generation + 1;
        final KeyStore keyStore = KeyStore.getInstance("PKCS12");
        keyStore.load(null, null);
        keyStore.setKeyEntry(ALIAS + next, key, NO_PASSWORD, chain);
        final KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(keyStore, NO_PASSWORD);
        final KeyStore trustStore = KeyStore.getInstance("PKCS12");
        trustStore.load(null, null);
        int i = 0;
        for (final X509Certificate ca : cas)
        {
            trustStore.setCertificateEntry("ca-" + i++, ca);
        }
        final TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trustStore);
        // A key that does not belong to the certificate fails here, not at a peer's handshake.
        matches(chain[0], key);
        keys.remove(ALIAS + (generation - 1));
        keys.put(ALIAS + next, (X509ExtendedKeyManager)kmf.getKeyManagers()[0]);
        trust = (X509ExtendedTrustManager)tmf.getTrustManagers()[0];
        generation = next;
    }

    private static void matches(final X509Certificate cert, final PrivateKey key) throws GeneralSecurityException
    {
        final String algorithm = switch (key.getAlgorithm())
        {
            case "EC" -> "SHA256withECDSA";
            case "RSA" -> "SHA256withRSA";
            default -> key.getAlgorithm(); // Ed25519, Ed448
        };
        final byte[] probe = "rdmakv".getBytes(StandardCharsets.US_ASCII);
        final java.security.Signature sign = java.security.Signature.getInstance(algorithm);
        sign.initSign(key);
        sign.update(probe);
        final byte[] signature = sign.sign();
        final java.security.Signature verify = java.security.Signature.getInstance(algorithm);
        verify.initVerify(cert.getPublicKey());
        verify.update(probe);
        if (!verify.verify(signature))
        {
            throw new GeneralSecurityException("the private key does not belong to the certificate " +
                cert.getSubjectX500Principal());
        }
    }

    private static Collection<X509Certificate> certificates(final byte[] pem) throws CertificateException
    {
        @SuppressWarnings("unchecked")
        final Collection<X509Certificate> out = (Collection<X509Certificate>)(Collection<? extends Certificate>)
            CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem));
        return out;
    }

    private static PrivateKey privateKey(final byte[] pem, final String algorithm) throws GeneralSecurityException
    {
        final Matcher m = PKCS8.matcher(new String(pem, StandardCharsets.US_ASCII));
        if (!m.find())
        {
            throw new GeneralSecurityException("the key file holds no unencrypted PKCS#8 key (-----BEGIN PRIVATE " +
                "KEY-----); convert it with: openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8");
        }
        final byte[] der = Base64.getMimeDecoder().decode(m.group(1));
        return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
    }

    private byte[][] read() throws IOException
    {
        return new byte[][] {
            Files.readAllBytes(settings.certFile()), Files.readAllBytes(settings.keyFile()),
            Files.readAllBytes(settings.caFile())};
    }

    /** Chooses the current generation's alias at each handshake; answers chain and key by the alias chosen. */
    private final class KeyManager extends X509ExtendedKeyManager
    {
        @Override
        public String[] getClientAliases(final String keyType, final Principal[] issuers)
        {
            return new String[] {currentAlias()};
        }

        @Override
        public String chooseClientAlias(final String[] keyType, final Principal[] issuers, final Socket socket)
        {
            return currentAlias();
        }

        @Override
        public String chooseEngineClientAlias(final String[] keyType, final Principal[] issuers, final SSLEngine engine)
        {
            return currentAlias();
        }

        @Override
        public String[] getServerAliases(final String keyType, final Principal[] issuers)
        {
            return new String[] {currentAlias()};
        }

        @Override
        public String chooseServerAlias(final String keyType, final Principal[] issuers, final Socket socket)
        {
            return currentAlias();
        }

        @Override
        public String chooseEngineServerAlias(final String keyType, final Principal[] issuers, final SSLEngine engine)
        {
            return currentAlias();
        }

        @Override
        public X509Certificate[] getCertificateChain(final String alias)
        {
            final X509ExtendedKeyManager keys = keysOf(alias);
            return keys == null ? null : keys.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(final String alias)
        {
            final X509ExtendedKeyManager keys = keysOf(alias);
            return keys == null ? null : keys.getPrivateKey(alias);
        }
    }

    /** Delegates each check to the trust manager of the CA file as it is now (the engine and socket forms too). */
    private final class TrustManager extends X509ExtendedTrustManager
    {
        @Override
        public void checkClientTrusted(final X509Certificate[] chain, final String authType, final Socket socket)
            throws CertificateException
        {
            currentTrust().checkClientTrusted(chain, authType, socket);
        }

        @Override
        public void checkServerTrusted(final X509Certificate[] chain, final String authType, final Socket socket)
            throws CertificateException
        {
            currentTrust().checkServerTrusted(chain, authType, socket);
        }

        @Override
        public void checkClientTrusted(final X509Certificate[] chain, final String authType, final SSLEngine engine)
            throws CertificateException
        {
            currentTrust().checkClientTrusted(chain, authType, engine);
        }

        @Override
        public void checkServerTrusted(final X509Certificate[] chain, final String authType, final SSLEngine engine)
            throws CertificateException
        {
            currentTrust().checkServerTrusted(chain, authType, engine);
        }

        @Override
        public void checkClientTrusted(final X509Certificate[] chain, final String authType)
            throws CertificateException
        {
            currentTrust().checkClientTrusted(chain, authType);
        }

        @Override
        public void checkServerTrusted(final X509Certificate[] chain, final String authType)
            throws CertificateException
        {
            currentTrust().checkServerTrusted(chain, authType);
        }

        @Override
        public X509Certificate[] getAcceptedIssuers()
        {
            return currentTrust().getAcceptedIssuers();
        }
    }
}

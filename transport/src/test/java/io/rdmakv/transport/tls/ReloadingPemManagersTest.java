package io.rdmakv.transport.tls;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The managers Ratis' gRPC channels are given follow the PEM files without a restart: a new certificate and key are
 * presented from the next handshake, the chain and key of one handshake always belong together, a new CA file is what
 * peers are checked against, and files that do not load keep the ones in use.
 */
class ReloadingPemManagersTest
{
    @TempDir
    Path dir;

    @Test
    void shouldPresentANewCertificateAndTrustANewCaFromTheNextHandshake() throws Exception
    {
        final TestCertificates first = TestCertificates.authority(dir.resolve("a"), "first");
        final TestCertificates second = TestCertificates.authority(dir.resolve("b"), "second");
        final Path cert = dir.resolve("node.pem");
        final Path key = dir.resolve("node.key");
        final Path ca = dir.resolve("ca.pem");
        install(first.issue("node"), cert, key);
        Files.copy(first.caFile(), ca);
        final ReloadingPemManagers managers = new ReloadingPemManagers(
            TlsSettings.of(cert, key, ca, TlsSettings.Auth.REQUIRED));
        final X509Certificate[] peerOfFirst = chain(first.issue("peer"));
        final X509Certificate[] peerOfSecond = chain(second.issue("peer"));

        final String before = managers.keyManager().chooseEngineServerAlias("EC", null, null);
        assertEquals("CN=first test CA", managers.keyManager().getCertificateChain(before)[0].getIssuerX500Principal()
            .getName());
        managers.trustManager().checkClientTrusted(peerOfFirst, "ECDHE_ECDSA");
        assertThrows(CertificateException.class, () -> managers.trustManager().checkClientTrusted(peerOfSecond,
            "ECDHE_ECDSA"));

        // The operator rotates to the second CA: new certificate, key and CA files, no restart.
        install(second.issue("node"), cert, key);
        Files.copy(second.caFile(), ca, StandardCopyOption.REPLACE_EXISTING);
        final String after = managers.keyManager().chooseEngineServerAlias("EC", null, null);
        assertNotEquals(before, after);
        assertEquals(2, managers.generation());
        final X509Certificate presented = managers.keyManager().getCertificateChain(after)[0];
        assertEquals("CN=second test CA", presented.getIssuerX500Principal().getName());
        assertEquals(presented.getPublicKey().getAlgorithm(), managers.keyManager().getPrivateKey(after)
            .getAlgorithm());
        managers.trustManager().checkClientTrusted(peerOfSecond, "ECDHE_ECDSA");
        assertThrows(CertificateException.class, () -> managers.trustManager().checkClientTrusted(peerOfFirst,
            "ECDHE_ECDSA"));
        // A handshake that chose its alias just before the change still gets that generation's chain and key.
        assertEquals("CN=first test CA", managers.keyManager().getCertificateChain(before)[0].getIssuerX500Principal()
            .getName());
        assertTrue(managers.keyManager().getPrivateKey(before) != null);
    }

    @Test
    void shouldKeepTheCertificateInUseWhenTheChangedFilesDoNotLoad() throws Exception
    {
        final TestCertificates ca = TestCertificates.authority(dir.resolve("a"), "first");
        final Path cert = dir.resolve("node.pem");
        final Path key = dir.resolve("node.key");
        install(ca.issue("node"), cert, key);
        final ReloadingPemManagers managers = new ReloadingPemManagers(
            TlsSettings.of(cert, key, ca.caFile(), TlsSettings.Auth.REQUIRED));
        final String alias = managers.keyManager().chooseEngineClientAlias(new String[] {"EC"}, null, null);
        final X509Certificate[] inUse = managers.keyManager().getCertificateChain(alias);

        // Half-written: the certificate file is cut; then a key of another certificate beside a valid one.
        final byte[] whole = Files.readAllBytes(cert);
        Files.write(cert, java.util.Arrays.copyOf(whole, whole.length / 2));
        assertEquals(alias, managers.keyManager().chooseEngineClientAlias(new String[] {"EC"}, null, null));
        Files.write(cert, whole);
        Files.copy(ca.issue("other").key(), key, StandardCopyOption.REPLACE_EXISTING);
        assertEquals(alias, managers.keyManager().chooseEngineClientAlias(new String[] {"EC"}, null, null));
        assertArrayEquals(inUse, managers.keyManager().getCertificateChain(alias));
        assertEquals(1, managers.generation());
    }

    @Test
    void shouldRefuseAtStartFilesThatDoNotLoadNamingThem() throws IOException
    {
        final TestCertificates ca = TestCertificates.authority(dir.resolve("a"), "first");
        final TestCertificates.Pem node = ca.issue("node");
        final Path notAKey = dir.resolve("not-a-key.pem");
        Files.writeString(notAKey, "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () ->
            new ReloadingPemManagers(TlsSettings.of(node.cert(), notAKey, ca.caFile(), TlsSettings.Auth.REQUIRED)));
        assertTrue(ex.getMessage().contains("not-a-key.pem") && ex.getMessage().contains("PKCS#8"), ex.getMessage());
    }

    private static void install(final TestCertificates.Pem pem, final Path cert, final Path key) throws IOException
    {
        Files.copy(pem.cert(), cert, StandardCopyOption.REPLACE_EXISTING);
        Files.copy(pem.key(), key, StandardCopyOption.REPLACE_EXISTING);
    }

    private static X509Certificate[] chain(final TestCertificates.Pem pem) throws Exception
    {
        try (var in = Files.newInputStream(pem.cert()))
        {
            return java.security.cert.CertificateFactory.getInstance("X.509").generateCertificates(in).stream()
                .map(c -> (X509Certificate)c).toArray(X509Certificate[]::new);
        }
    }
}

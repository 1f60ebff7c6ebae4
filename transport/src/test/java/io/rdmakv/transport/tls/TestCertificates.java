package io.rdmakv.transport.tls;

import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

import java.io.IOException;
import java.io.Writer;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Certificates made at test time (BouncyCastle), written as PEM files the way an operator's openssl would: a CA, and
 * leaf certificates it signs for 127.0.0.1 and localhost (usable by a node and by a client), an expired one, and
 * another CA's for "untrusted". EC P-256 keys, PKCS#8. Nothing is committed.
 */
public final class TestCertificates
{
    /** A certificate chain file and its private key file. */
    public record Pem(Path cert, Path key)
    {
    }

    private static final AtomicLong SERIALS = new AtomicLong(System.nanoTime());
    private static final GeneralName[] LOCAL_NAMES = {new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
        new GeneralName(GeneralName.dNSName, "localhost")};

    private final Path dir;
    private final String name;
    private final KeyPair caKeys;
    private final X509CertificateHolder caCert;
    private final Path caFile;

    private TestCertificates(final Path dir, final String name) throws IOException, GeneralSecurityException
    {
        this.dir = Files.createDirectories(dir);
        this.name = name;
        this.caKeys = keys();
        final X500Name subject = new X500Name("CN=" + name + " test CA");
        final Instant now = Instant.now();
        final JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, serial(),
            Date.from(now.minus(Duration.ofHours(1))), Date.from(now.plus(Duration.ofDays(1))), subject,
            caKeys.getPublic());
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        this.caCert = b.build(signer(caKeys));
        this.caFile = dir.resolve(name + "-ca.pem");
        writePem(caFile, caCert);
    }

    /** A fresh CA named {@code name}, its certificate written to {@code dir}. */
    public static TestCertificates authority(final Path dir, final String name)
    {
        try
        {
            return new TestCertificates(dir, name);
        }
        catch (final IOException | GeneralSecurityException ex)
        {
            throw new IllegalStateException("cannot make the test CA " + name, ex);
        }
    }

    /** The CA's certificate (PEM): {@code tls.caFile}, {@code --tls-ca}. */
    public Path caFile()
    {
        return caFile;
    }

    /** A certificate for 127.0.0.1 and localhost, valid now, for a server and a client. */
    public Pem issue(final String leaf)
    {
        final Instant now = Instant.now();
        return issue(leaf, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)), LOCAL_NAMES);
    }

    /** As {@link #issue(String)}, but its validity ended an hour ago. */
    public Pem issueExpired(final String leaf)
    {
        final Instant now = Instant.now();
        return issue(leaf, now.minus(Duration.ofDays(2)), now.minus(Duration.ofHours(1)), LOCAL_NAMES);
    }

    /** A certificate valid now for {@code host} alone (a DNS name): the wrong one for a peer dialled at 127.0.0.1. */
    public Pem issueFor(final String leaf, final String host)
    {
        final Instant now = Instant.now();
        return issue(leaf, now.minus(Duration.ofHours(1)), now.plus(Duration.ofDays(1)),
            new GeneralName[] {new GeneralName(GeneralName.dNSName, host)});
    }

    private Pem issue(final String leaf, final Instant from, final Instant to, final GeneralName[] names)
    {
        try
        {
            final KeyPair keys = keys();
            final JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(caCert.getSubject(), serial(),
                Date.from(from), Date.from(to), new X500Name("CN=" + leaf), keys.getPublic());
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(new KeyPurposeId[] {
                KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
            final Pem pem = new Pem(dir.resolve(name + "-" + leaf + ".pem"), dir.resolve(name + "-" + leaf + ".key"));
            writePem(pem.cert(), b.build(signer(caKeys)));
            writePem(pem.key(), new JcaPKCS8Generator(keys.getPrivate(), null).generate());
            return pem;
        }
        catch (final IOException | GeneralSecurityException | RuntimeException ex)
        {
            throw new IllegalStateException("cannot issue the test certificate " + leaf, ex);
        }
    }

    private static KeyPair keys() throws GeneralSecurityException
    {
        final KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        return g.generateKeyPair();
    }

    private static ContentSigner signer(final KeyPair keys)
    {
        try
        {
            return new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate());
        }
        catch (final org.bouncycastle.operator.OperatorCreationException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    private static BigInteger serial()
    {
        return BigInteger.valueOf(SERIALS.incrementAndGet());
    }

    private static void writePem(final Path file, final Object object) throws IOException
    {
        try (Writer w = Files.newBufferedWriter(file, StandardCharsets.US_ASCII); JcaPEMWriter pem = new JcaPEMWriter(w))
        {
            pem.writeObject(object);
        }
    }
}

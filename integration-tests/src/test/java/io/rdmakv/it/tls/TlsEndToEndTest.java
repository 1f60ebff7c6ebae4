package io.rdmakv.it.tls;

import io.rdmakv.cli.Io;
import io.rdmakv.cli.RdmakvMain;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.transport.tls.TestCertificates;
import io.rdmakv.transport.tls.TlsSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS 1.3 end to end against node processes, certificates made at test time: a node that requires client
 * certificates serves a client that has one (control plane and tcp data path, one-sided and RPC GETs, the CLI with
 * {@code --tls-*}); a client without one, a plaintext client, a client trusting another CA and a node with an expired
 * certificate are refused with a clear reason; a TLS client meets a plaintext node with a clear reason too. The
 * secret, given by file, appears in no log.
 */
@Timeout(300)
class TlsEndToEndTest
{
    private static final String SECRET = "tls-e2e-s3cret-7f3a";

    @TempDir
    Path tmp;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Path secretFile() throws Exception
    {
        final Path file = Files.writeString(tmp.resolve("secret"), SECRET + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    private static KvClientBuilder client(final ServerProcess node, final TlsSettings tls)
    {
        return KvClient.builder().server(node.seed()).transport("tcp").tls(tls.caFile(), tls.certFile(), tls.keyFile())
            .secret(SECRET)
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(20));
    }

    @Test
    void shouldServeOverTlsAndRefuseWhoeverCannotSpeakIt() throws Exception
    {
        final TestCertificates ca = TestCertificates.authority(tmp.resolve("pki"), "e2e");
        final TestCertificates.Pem node = ca.issue("node");
        final TestCertificates.Pem client = ca.issue("client");
        final TlsSettings withCert = TlsSettings.of(client.cert(), client.key(), ca.caFile(), TlsSettings.Auth.NONE);
        try (ServerProcess server = ServerProcess.builder(tmp.resolve("tls-node")).name("tls-node")
            .setting("transport", "tcp").setting("auth.secretFile", secretFile().toString())
            .setting("tls.certFile", node.cert().toString()).setting("tls.keyFile", node.key().toString())
            .setting("tls.caFile", ca.caFile().toString()).setting("tls.clientAuth", "required").start())
        {
            for (final GetMode mode : new GetMode[] {GetMode.ONE_SIDED, GetMode.RPC})
            {
                try (KvClient kv = client(server, withCert).getMode(mode).build())
                {
                    kv.put(b("k-" + mode), b("v-" + mode));
                    assertArrayEquals(b("v-" + mode), kv.get(b("k-" + mode)), mode.toString());
                    assertEquals("tcp", kv.diagnostics().transport());
                }
            }

            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final ByteArrayOutputStream err = new ByteArrayOutputStream();
            final int code = RdmakvMain.commandLine(new Io(System.in, new PrintStream(out, true), new PrintStream(err,
                true))).execute("get", "-s", server.seed(), "--transport", "tcp", "--secret-file",
                secretFile().toString(), "--tls-ca", ca.caFile().toString(), "--tls-cert", client.cert().toString(),
                "--tls-key", client.key().toString(), "k-RPC");
            assertEquals(0, code, err.toString());
            assertTrue(out.toString().contains("v-RPC"), out.toString());

            final String noCert = refused(() -> client(server, TlsSettings.of(null, null, ca.caFile(),
                TlsSettings.Auth.NONE)).build());
            assertTrue(noCert.contains("TLS") && noCert.contains(server.seed()), noCert);

            final String plaintext = refused(() -> client(server, TlsSettings.OFF).build());
            assertTrue(plaintext.contains("plaintext client on a TLS port"), plaintext);

            final TestCertificates other = TestCertificates.authority(tmp.resolve("pki"), "other");
            final String untrusted = refused(() -> client(server, TlsSettings.of(client.cert(), client.key(),
                other.caFile(), TlsSettings.Auth.NONE)).build());
            assertTrue(untrusted.contains("not trusted"), untrusted);
            try (KvClient kv = client(server, withCert).build())
            {
                assertArrayEquals(b("v-RPC"), kv.get(b("k-RPC")), "the node keeps serving after every refusal");
            }

            server.stop(Duration.ofSeconds(30));
            final String logs = Files.readString(server.stdoutLog()) + Files.readString(server.stderrLog());
            assertTrue(logs.contains("refused a plaintext client on a TLS port"), "the node says why: " + logs);
            assertFalse(logs.contains(SECRET), "the secret is in no log");
        }

        final TestCertificates.Pem expired = ca.issueExpired("expired-node");
        try (ServerProcess server = ServerProcess.builder(tmp.resolve("expired-node")).name("expired-node")
            .setting("transport", "tcp").setting("tls.certFile", expired.cert().toString())
            .setting("tls.keyFile", expired.key().toString()).start())
        {
            final String why = refused(() -> client(server, withCert).build());
            assertTrue(why.contains("not trusted") && why.toLowerCase().contains("expired"), why);
        }
    }

    @Test
    void shouldTellATlsClientThatTheNodeSpeaksPlaintext() throws Exception
    {
        final TestCertificates ca = TestCertificates.authority(tmp.resolve("pki"), "plain");
        try (ServerProcess server = ServerProcess.builder(tmp.resolve("plain-node")).name("plain-node")
            .setting("transport", "tcp").start())
        {
            final String why = refused(() -> client(server, TlsSettings.of(null, null, ca.caFile(),
                TlsSettings.Auth.NONE)).build());
            assertTrue(why.contains("plaintext"), why);
            server.stop(Duration.ofSeconds(30));
            final String logs = Files.readString(server.stdoutLog()) + Files.readString(server.stderrLog());
            assertTrue(logs.contains("refused a TLS client on a plaintext port"), "the node says why: " + logs);
        }
    }

    /** The message of the KvException {@code connect} must end in: a refusal, not a timeout. */
    private static String refused(final java.util.function.Supplier<KvClient> connect)
    {
        final KvException ex = assertThrows(KvException.class, () -> connect.get().close());
        assertNotEquals(KvError.TIMED_OUT, ex.error(), ex.getMessage());
        return ex.getMessage();
    }
}

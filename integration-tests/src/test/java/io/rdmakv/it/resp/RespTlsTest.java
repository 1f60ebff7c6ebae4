package io.rdmakv.it.resp;

import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.transport.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;
import io.rdmakv.it.support.ServerProcess;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.exceptions.JedisConnectionException;

import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The RESP port of a node with {@code tls.certFile} speaks TLS only, as Redis's {@code tls-port}, with the node's
 * certificate (made at test time): Jedis over TLS trusting the node's CA is served (commands, a pipeline in order);
 * a plaintext client gets one {@code -ERR} line saying the port wants TLS, then the connection closes; Jedis trusting
 * another CA fails its handshake; the node serves TLS clients after each refusal.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(180)
class RespTlsTest
{
    private static final String SECRET = "resp-tls-s3cret";

    @TempDir
    Path tmp;

    @Test
    void shouldServeJedisOverTlsAndRefusePlaintext() throws Exception
    {
        final TestCertificates ca = TestCertificates.authority(tmp.resolve("pki"), "resp");
        final TestCertificates.Pem cert = ca.issue("node");
        final int port = FreePorts.take(1)[0];
        final HostAndPort at = new HostAndPort("127.0.0.1", port);
        try (ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("resp-tls")
            .setting("transport", "tcp").setting("resp.port", Integer.toString(port)).setting("auth.secret", SECRET)
            .setting("tls.certFile", cert.cert().toString()).setting("tls.keyFile", cert.key().toString()).start())
        {
            try (Jedis jedis = tlsJedis(at, ca.caFile()))
            {
                assertEquals("PONG", jedis.ping());
                assertEquals("OK", jedis.set("greeting", "over tls"));
                assertEquals("over tls", jedis.get("greeting"));
                final Pipeline pipeline = jedis.pipelined();
                for (int i = 0; i < 200; i++)
                {
                    pipeline.set("k" + i, "v" + i);
                    pipeline.get("k" + i);
                }
                final List<Object> replies = pipeline.syncAndReturnAll();
                final List<Object> expected = new ArrayList<>();
                for (int i = 0; i < 200; i++)
                {
                    expected.add("OK");
                    expected.add("v" + i);
                }
                assertEquals(expected, replies, "a pipeline over TLS is answered in order");
            }

            try (Socket plain = new Socket("127.0.0.1", port))
            {
                plain.setSoTimeout(30_000);
                plain.getOutputStream().write("*1\r\n$4\r\nPING\r\n".getBytes(StandardCharsets.US_ASCII));
                final InputStream in = plain.getInputStream();
                final String answer = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(answer.startsWith("-ERR this RESP port speaks TLS only") && answer.endsWith("\r\n") &&
                    answer.contains("--tls"), "a plaintext client is told, then the connection closes: " + answer);
            }

            final TestCertificates other = TestCertificates.authority(tmp.resolve("pki"), "other");
            assertThrows(JedisConnectionException.class, () ->
            {
                try (Jedis untrusting = tlsJedis(at, other.caFile()))
                {
                    untrusting.ping();
                }
            }, "a client that does not trust the node's certificate fails its handshake");

            try (Jedis jedis = tlsJedis(at, ca.caFile()))
            {
                assertEquals("over tls", jedis.get("greeting"), "the node keeps serving after the refusals");
            }
            server.stop(Duration.ofSeconds(30));
            final String logs = Files.readString(server.stdoutLog()) + Files.readString(server.stderrLog());
            assertTrue(logs.contains("RESP listening on") && logs.contains("TLS only"), "the log says so: " + logs);
        }
    }

    /** Jedis over TLS, trusting {@code caFile} (PEM) only; the node's certificate names 127.0.0.1. */
    private static Jedis tlsJedis(final HostAndPort at, final Path caFile) throws Exception
    {
        final KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
        trust.load(null, null);
        try (InputStream pem = Files.newInputStream(caFile))
        {
            trust.setCertificateEntry("ca", CertificateFactory.getInstance("X.509").generateCertificate(pem));
        }
        final TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        final SSLContext ssl = SSLContext.getInstance("TLSv1.3");
        ssl.init(null, tmf.getTrustManagers(), null);
        return new Jedis(at, DefaultJedisClientConfig.builder().ssl(true).sslSocketFactory(ssl.getSocketFactory())
            .password(SECRET).socketTimeoutMillis(30_000).connectionTimeoutMillis(10_000).build());
    }
}

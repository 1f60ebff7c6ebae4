package io.rdmakv.transport.tcp;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.Listener;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.TransportStatus;
import io.rdmakv.transport.conformance.TransportConformanceSupport;
import io.rdmakv.transport.tls.TestCertificates;
import io.rdmakv.transport.tls.TlsSettings;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * TLS 1.3 on the tcp transport, with certificates made at test time: a round trip; a renewed certificate served to
 * new connections without a restart; a certificate the client does not
 * trust (another CA, another host, expired) refused; a required client certificate missing refused; and a plaintext peer meeting a
 * TLS port, or a TLS peer a plaintext one, failing at once on both sides, never hanging.
 */
@Timeout(60)
class TcpTlsTest extends TransportConformanceSupport
{
    /** Bounds a wait that a failure ends at once; reaching it is the failure. */
    private static final long HANG_GUARD_SECONDS = 30;

    @Override
    protected TransportProvider provider()
    {
        return new TcpTransportProvider();
    }

    private static TransportConfig tls(final TestCertificates.Pem own, final java.nio.file.Path ca,
        final TlsSettings.Auth auth)
    {
        final TransportConfig.Builder b = TransportConfig.builder().connectTimeout(Duration.ofSeconds(5))
            .operationTimeout(Duration.ofSeconds(20));
        TlsSettings.of(own == null ? null : own.cert(), own == null ? null : own.key(), ca, auth).properties()
            .forEach(b::property);
        return b.build();
    }

    private static TransportConfig plain()
    {
        return TransportConfig.builder().connectTimeout(Duration.ofSeconds(5)).operationTimeout(Duration.ofSeconds(20))
            .build();
    }

    @Test
    void shouldCarryMessagesBothWaysOverTlsWithoutCallerLanes() throws Exception
    {
        final TransportConfig config = TcpTls.on(config());
        final Connection c = connect(config, config);
        final UnsafeBuffer message = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        message.putInt(0, 42);
        final CompletableFuture<TransportStatus> sent = new CompletableFuture<>();
        assertTrue(c.clientEndpoint().send(message, 0, 64, (status, id) -> sent.complete(status)) >= 0);
        assertEquals(TransportStatus.OK, sent.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        awaitTrue(() -> c.server().handler.messages.get() == 1, Duration.ofSeconds(HANG_GUARD_SECONDS),
            "the server to receive the message");
        final CompletableFuture<TransportStatus> back = new CompletableFuture<>();
        assertTrue(c.serverEndpoint().send(message, 0, 64, (status, id) -> back.complete(status)) >= 0);
        assertEquals(TransportStatus.OK, back.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        awaitTrue(() -> c.client().handler.messages.get() == 1, Duration.ofSeconds(HANG_GUARD_SECONDS),
            "the client to receive the answer");

        assertTrue(((TcpTransport)c.client().transport).tls());
        assertFalse(c.client().transport.capabilities().has(TransportCapability.CALLER_LANES), "a lane has no TLS");
        assertThrows(UnsupportedOperationException.class, () -> c.client().worker.openLane(
            new InetSocketAddress("127.0.0.1", c.listener().localAddress().getPort()), Duration.ofSeconds(1)));
    }

    @Test
    void shouldRefuseANodeCertificateFromAnotherCa() throws Exception
    {
        final TestCertificates other = TestCertificates.authority(TcpTls.DIR, "other");
        final String why = refusedConnect(TcpTls.on(config()), tls(null, other.caFile(), TlsSettings.Auth.NONE));
        assertTrue(why.contains("not trusted"), why);
    }

    @Test
    void shouldRefuseANodeCertificateForAnotherHost() throws Exception
    {
        final TestCertificates.Pem elsewhere = TcpTls.CA.issueFor("elsewhere", "node.elsewhere.example");
        final String why = refusedConnect(tls(elsewhere, TcpTls.CA.caFile(), TlsSettings.Auth.NONE),
            tls(null, TcpTls.CA.caFile(), TlsSettings.Auth.NONE));
        assertTrue(why.contains("not trusted") && why.contains("127.0.0.1"), why);
    }

    @Test
    void shouldRefuseAnExpiredNodeCertificate() throws Exception
    {
        final TestCertificates.Pem expired = TcpTls.CA.issueExpired("expired");
        final String why = refusedConnect(tls(expired, TcpTls.CA.caFile(), TlsSettings.Auth.NONE),
            tls(null, TcpTls.CA.caFile(), TlsSettings.Auth.NONE));
        assertTrue(why.contains("not trusted") && why.toLowerCase().contains("expired"), why);
    }

    @Test
    void shouldRefuseAClientWithoutTheRequiredCertificate() throws Exception
    {
        final Peer server = peer("server", tls(TcpTls.PEER, TcpTls.CA.caFile(), TlsSettings.Auth.REQUIRED));
        final Peer client = peer("client", tls(null, TcpTls.CA.caFile(), TlsSettings.Auth.NONE));
        final Listener listener = closeLater(server.worker.listen(LOOPBACK, server.handler));
        final CompletableFuture<Endpoint> connecting = client.worker.connect(
            new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), client.handler);
        // TLS 1.3 ends the client's handshake before the server checks its certificate: the refusal is either the
        // connect failing or the endpoint it gave being disconnected; either way nothing is ever delivered.
        try
        {
            final Endpoint ep = connecting.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
            ep.send(new UnsafeBuffer(ByteBuffer.allocateDirect(16)), 0, 16, null);
            assertTrue(client.handler.disconnected.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS),
                "the client's endpoint is closed by the server's refusal");
        }
        catch (final ExecutionException refused)
        {
            assertInstanceOf(TransportException.class, refused.getCause());
        }
        assertTrue(server.handler.disconnected.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS),
            "the server closes the connection");
        assertEquals(0, server.handler.messages.get(), "nothing reached the server");

        // With its certificate the same client gets in.
        final Peer withCert = peer("client2", tls(TcpTls.PEER, TcpTls.CA.caFile(), TlsSettings.Auth.NONE));
        withCert.worker.connect(new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()),
            withCert.handler).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
    }

    @Test
    void shouldRefuseAPlaintextClientOnATlsPortAtOnce() throws Exception
    {
        final Peer server = peer("server", TcpTls.on(config()));
        final Peer client = peer("client", plain());
        final Listener listener = closeLater(server.worker.listen(LOOPBACK, server.handler));
        final Endpoint ep = client.worker.connect(new InetSocketAddress("127.0.0.1",
            listener.localAddress().getPort()), client.handler).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        assertTrue(ep.send(new UnsafeBuffer(ByteBuffer.allocateDirect(64)), 0, 64, null) >= 0);
        assertTrue(client.handler.disconnected.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS),
            "the plaintext client is disconnected, not left waiting");
        assertTrue(server.handler.disconnected.await(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        assertEquals(0, server.handler.messages.get(), "a plaintext frame is never delivered");
    }

    @Test
    void shouldFailATlsClientOnAPlaintextPortAtOnce() throws Exception
    {
        final String why = refusedConnect(plain(), TcpTls.on(config()));
        assertTrue(why.contains("closed the connection during the handshake") || why.contains("plaintext"), why);
    }

    @Test
    void shouldFailAConnectWhosePeerNeverAnswersTheHandshake() throws Exception
    {
        // The kernel completes the TCP connect from the backlog; nothing ever reads the ClientHello.
        try (java.net.ServerSocket silent = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            final TransportConfig client = TcpTls.on(config()).toBuilder().connectTimeout(Duration.ofSeconds(1))
                .build();
            final Peer c = peer("client", client);
            final CompletableFuture<Endpoint> connecting = c.worker.connect(
                new InetSocketAddress("127.0.0.1", silent.getLocalPort()), c.handler);
            final ExecutionException ex = assertThrows(ExecutionException.class,
                () -> connecting.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS), "the handshake's own timeout ends it");
            assertEquals(TransportStatus.NOT_CONNECTED,
                assertInstanceOf(TransportException.class, ex.getCause()).status());
        }
    }

    @Test
    void shouldServeNewConnectionsWithTheCertificateFilesAsTheyAreNow() throws Exception
    {
        // The listener's files are copies the test replaces, as an operator renewing a certificate would.
        final java.nio.file.Path dir = java.nio.file.Files.createTempDirectory(TcpTls.DIR, "reload");
        final TestCertificates.Pem live = new TestCertificates.Pem(dir.resolve("node.pem"), dir.resolve("node.key"));
        final TestCertificates renewed = TestCertificates.authority(TcpTls.DIR, "renewed");
        final TestCertificates.Pem next = renewed.issue("node");
        copy(TcpTls.PEER, live);
        final Peer server = peer("server", tls(live, null, TlsSettings.Auth.NONE));
        final Listener listener = closeLater(server.worker.listen(LOOPBACK, server.handler));
        final InetSocketAddress address = new InetSocketAddress("127.0.0.1", listener.localAddress().getPort());
        final Peer oldClient = peer("old", tls(null, TcpTls.CA.caFile(), TlsSettings.Auth.NONE));
        final Peer newClient = peer("new", tls(null, renewed.caFile(), TlsSettings.Auth.NONE));
        oldClient.worker.connect(address, oldClient.handler).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);

        copy(next, live);
        newClient.worker.connect(address, newClient.handler).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
        final Peer oldAgain = peer("old-again", tls(null, TcpTls.CA.caFile(), TlsSettings.Auth.NONE));
        final ExecutionException stale = assertThrows(ExecutionException.class, () -> oldAgain.worker.connect(address,
            oldAgain.handler).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS), "the old certificate is no longer served");
        assertInstanceOf(TransportException.class, stale.getCause());

        // A file caught half written does not load: the certificate in use stays.
        java.nio.file.Files.writeString(live.cert(), "-----BEGIN CERTIFICATE-----\nMIIB\n");
        final Peer during = peer("during", tls(null, renewed.caFile(), TlsSettings.Auth.NONE));
        during.worker.connect(address, during.handler).get(HANG_GUARD_SECONDS, TimeUnit.SECONDS);
    }

    private static void copy(final TestCertificates.Pem from, final TestCertificates.Pem to) throws Exception
    {
        java.nio.file.Files.copy(from.key(), to.key(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        java.nio.file.Files.copy(from.cert(), to.cert(), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    /** Connect {@code client} to a listener of {@code server}: the connect must fail, fast; its message. */
    private String refusedConnect(final TransportConfig server, final TransportConfig client) throws Exception
    {
        final Peer s = peer("server", server);
        final Peer c = peer("client", client);
        final Listener listener = closeLater(s.worker.listen(LOOPBACK, s.handler));
        final CompletableFuture<Endpoint> connecting = c.worker.connect(
            new InetSocketAddress("127.0.0.1", listener.localAddress().getPort()), c.handler);
        final ExecutionException ex = assertThrows(ExecutionException.class,
            () -> connecting.get(HANG_GUARD_SECONDS, TimeUnit.SECONDS));
        final TransportException te = assertInstanceOf(TransportException.class, ex.getCause());
        assertEquals(TransportStatus.NOT_CONNECTED, te.status());
        assertEquals(0, s.handler.messages.get());
        return te.getMessage();
    }
}

package io.rdmakv.server.control;

import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.KvServer;
import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.select.HostIdentity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ControlPlaneTest
{
    @TempDir
    Path dir;

    private KvServer start(final Map<String, String> extra)
    {
        final Map<String, String> m = new HashMap<>(Map.of(
            "data.dir", dir.toString(), "transport", "tcp", "host", "127.0.0.1", "control.port", "0",
            "data.port", "0", "pool.size", "4MiB", "pool.pin", "OFF", "limits.maxValueBytes", "65536",
            "node.id", "5"));
        m.putAll(extra);
        return KvServer.start(ServerConfig.from(new Properties(), m));
    }

    /** A raw control connection: u32 little-endian length prefix + frame. */
    private static final class Conn implements AutoCloseable
    {
        final Socket socket = new Socket();
        final DataInputStream in;
        final OutputStream out;

        Conn(final InetSocketAddress address) throws IOException
        {
            socket.connect(address, 20_000);
            socket.setSoTimeout(20_000);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        void sendFrame(final byte[] frame) throws IOException
        {
            sendRaw(prefix(frame.length), frame);
        }

        void sendRaw(final byte[]... parts) throws IOException
        {
            for (final byte[] p : parts)
            {
                out.write(p);
            }
            out.flush();
        }

        ControlFrame receive() throws IOException
        {
            final byte[] len = in.readNBytes(4);
            if (len.length < 4)
            {
                throw new EOFException("closed");
            }
            final int n = ByteBuffer.wrap(len).order(ByteOrder.LITTLE_ENDIAN).getInt();
            return ControlFrameCodec.decode(in.readNBytes(n));
        }

        /** True when the server closed the connection (EOF or reset) within the socket timeout. */
        boolean closedByServer() throws IOException
        {
            try
            {
                return in.read() < 0;
            }
            catch (final SocketException ex)
            {
                return true;
            }
        }

        @Override
        public void close() throws IOException
        {
            socket.close();
        }
    }

    private static byte[] prefix(final int length)
    {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array();
    }

    private static byte[] hello(final String credential)
    {
        return ControlFrameCodec.encode(new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp"),
            credential.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    @Timeout(60)
    void shouldWelcomeAHelloWithEverythingNeededForOneSidedReads() throws Exception
    {
        try (KvServer server = start(Map.of()); Conn c = new Conn(server.controlAddress()))
        {
            c.sendFrame(hello(""));
            final Welcome w = assertInstanceOf(Welcome.class, c.receive());
            assertEquals(5, w.nodeId());
            assertEquals(server.geometry(), w.geometry());
            assertArrayEquals(server.remoteKey().pack(), w.remoteKey());
            final RemoteKey rkey = RemoteKey.unpack(w.remoteKey());
            assertEquals(w.poolHeaderAddress(), rkey.baseAddress());
            assertEquals(server.epoch(), w.layoutEpoch());
            // tcp (the main transport, the client's choice first) and shm beside it (transport.serveShm=auto), which
            // carries the node's host identity for a client to compare with its own.
            assertEquals(List.of("tcp", "shm"), w.transports().stream().map(TransportAddress::transport).toList());
            assertEquals("127.0.0.1", w.transports().get(0).host());
            assertEquals(server.dataAddress().getPort(), w.transports().get(0).port());
            assertEquals(HostIdentity.current(), w.transports().get(1).hostIdentity());
            assertEquals(1024, w.maxKeyLength());
            assertEquals(65536, w.maxValueLength());
            assertEquals(1, w.clusterMap().size());
            assertEquals(server.controlAddress().getPort(), w.clusterMap().get(0).controlPort());
            assertEquals(0, w.clusterMap().get(0).firstSlot());
            assertEquals(16383, w.clusterMap().get(0).lastSlot());

            // The connection stays usable: a second HELLO gets a second WELCOME, with a fresh session ticket.
            c.sendFrame(hello(""));
            final Welcome second = assertInstanceOf(Welcome.class, c.receive());
            assertEquals(2, server.counters().get(ServerCounter.HANDSHAKES));
            assertEquals(Welcome.SESSION_TICKET_LENGTH, w.sessionTicket().length);
            assertFalse(Arrays.equals(w.sessionTicket(), second.sessionTicket()), "one ticket per handshake");
            assertFalse(Arrays.equals(new byte[Welcome.SESSION_TICKET_LENGTH], w.sessionTicket()));
        }
    }

    @Test
    @Timeout(60)
    void shouldRejectAMissingOrWrongCredentialAndRevealNothing() throws Exception
    {
        try (KvServer server = start(Map.of("auth.secret", "open sesame")))
        {
            for (final String credential : new String[]{"", "open sesam", "open sesame!"})
            {
                try (Conn c = new Conn(server.controlAddress()))
                {
                    c.sendFrame(hello(credential));
                    final Reject r = assertInstanceOf(Reject.class, c.receive());
                    assertEquals(Status.UNAUTHENTICATED, r.status());
                    assertTrue(c.closedByServer(), "disconnected after REJECT");
                }
            }
            try (Conn c = new Conn(server.controlAddress()))
            {
                c.sendFrame(hello("open sesame"));
                assertInstanceOf(Welcome.class, c.receive());
            }
            assertEquals(3, server.counters().get(ServerCounter.HANDSHAKE_REJECTS));
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerAnAdminCommandThatOutlastsTheHandshakeDeadline() throws Exception
    {
        final CompletableFuture<AdminReply> slow = new CompletableFuture<>();
        final ControlServer control = new ControlServer(new InetSocketAddress("127.0.0.1", 0),
            new ControlServer.ControlSettings(4096, 4, new byte[0], new AdmissionSettings(8, 8,
                Duration.ofMillis(300), 4, Duration.ofSeconds(1))), hello -> null,
            command -> "remove-node 4".equals(command) ? slow :
                CompletableFuture.completedFuture(new AdminReply(true, "ok")), new ServerCounters());
        final InetSocketAddress address = control.start();
        try (Conn admin = new Conn(address))
        {
            admin.sendFrame(ControlFrameCodec.encode(new Admin(new byte[0], "remove-node 4")));
            // A connection opened after the command was sent, which never says HELLO, is closed at its deadline:
            // once it is, the admin connection's own deadline has passed too.
            try (Conn idle = new Conn(address))
            {
                assertInstanceOf(Reject.class, idle.receive());
            }
            slow.complete(new AdminReply(true, "removed node 4"));
            final AdminReply reply = assertInstanceOf(AdminReply.class, admin.receive());
            assertEquals("removed node 4", reply.text());
        }
        finally
        {
            control.close();
        }
    }

    @Test
    @Timeout(60)
    void shouldCountAnAdminConnectionAsAuthenticatedAndGiveItBack() throws Exception
    {
        try (KvServer server = start(Map.of("limits.maxConnections", "1")))
        {
            for (int i = 0; i < 3; i++)
            {
                try (Conn admin = new Conn(server.controlAddress()))
                {
                    admin.sendFrame(ControlFrameCodec.encode(new Admin(new byte[0], "status")));
                    assertInstanceOf(AdminReply.class, admin.receive());
                    assertTrue(admin.closedByServer(), "closed once answered");
                }
            }
            // Three commands came and went: the plane still has exactly one authenticated connection to give.
            try (Conn first = new Conn(server.controlAddress()); Conn second = new Conn(server.controlAddress()))
            {
                first.sendFrame(hello(""));
                assertInstanceOf(Welcome.class, first.receive());
                second.sendFrame(hello(""));
                assertEquals(Status.BUSY, assertInstanceOf(Reject.class, second.receive()).status());
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldRejectMalformedAndOversizedFramesAndKeepServing() throws Exception
    {
        try (KvServer server = start(Map.of("control.maxFrameBytes", "1024")))
        {
            // Garbage that is not a control frame.
            try (Conn c = new Conn(server.controlAddress()))
            {
                c.sendFrame("this is not a frame".getBytes(StandardCharsets.US_ASCII));
                final Reject r = assertInstanceOf(Reject.class, c.receive());
                assertTrue(r.status() == Status.MALFORMED, r.toString());
                assertTrue(c.closedByServer());
            }
            // A HELLO cut short.
            try (Conn c = new Conn(server.controlAddress()))
            {
                final byte[] h = hello("");
                final byte[] cut = java.util.Arrays.copyOf(h, h.length - 3);
                c.sendFrame(cut);
                assertInstanceOf(Reject.class, c.receive());
                assertTrue(c.closedByServer());
            }
            // A length prefix beyond the maximum: refused before any body is buffered.
            try (Conn c = new Conn(server.controlAddress()))
            {
                c.sendRaw(prefix(Integer.MAX_VALUE), new byte[64]);
                final Reject r = assertInstanceOf(Reject.class, c.receive());
                assertTrue(r.message().contains("1024"), r.message());
                assertTrue(c.closedByServer());
            }
            // A frame of the wrong kind (a REJECT sent by a client).
            try (Conn c = new Conn(server.controlAddress()))
            {
                c.sendFrame(ControlFrameCodec.encode(new Reject(Status.BUSY, "hi")));
                assertInstanceOf(Reject.class, c.receive());
                assertTrue(c.closedByServer());
            }
            // A connection that only half-sends a prefix and closes.
            try (Conn c = new Conn(server.controlAddress()))
            {
                c.sendRaw(new byte[]{1, 0});
            }
            try (Conn c = new Conn(server.controlAddress()))
            {
                c.sendFrame(hello(""));
                assertInstanceOf(Welcome.class, c.receive());
            }
            assertTrue(server.counters().get(ServerCounter.HANDSHAKE_REJECTS) >= 4);
        }
    }
}

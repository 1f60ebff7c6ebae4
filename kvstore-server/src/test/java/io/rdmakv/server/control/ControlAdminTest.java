package io.rdmakv.server.control;

import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.counters.ServerCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.DataInputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ADMIN commands on the control plane: answered however long they take. */
class ControlAdminTest
{
    private static final long HANDSHAKE_TIMEOUT_MILLIS = 2_000;

    @Test
    @Timeout(60)
    void shouldAnswerAnAdminCommandThatTakesLongerThanTheHandshakeTimeout() throws Exception
    {
        final CountDownLatch started = new CountDownLatch(1);
        final CompletableFuture<AdminReply> slow = new CompletableFuture<>();
        final AdmissionSettings admission = new AdmissionSettings(16, 16,
            Duration.ofMillis(HANDSHAKE_TIMEOUT_MILLIS), 5, Duration.ofSeconds(1));
        try (ControlServer server = new ControlServer(new InetSocketAddress("127.0.0.1", 0),
            new ControlServer.ControlSettings(1 << 16, 16, null, admission), hello -> null, command ->
            {
                started.countDown();
                return slow;
            }, new ServerCounters()))
        {
            final InetSocketAddress address = server.start();
            try (Socket socket = new Socket())
            {
                socket.connect(address, 20_000);
                socket.setSoTimeout(30_000);
                final OutputStream out = socket.getOutputStream();
                final byte[] frame = ControlFrameCodec.encode(new Admin(new byte[0], "remove-node 4"));
                out.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(frame.length).array());
                out.write(frame);
                out.flush();
                assertTrue(started.await(30, TimeUnit.SECONDS), "the command started");
                // The command outlives the connection's handshake deadline many times over (a drain under load).
                final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3 * HANDSHAKE_TIMEOUT_MILLIS);
                while (System.nanoTime() - deadline < 0)
                {
                    Thread.sleep(100);
                }
                slow.complete(new AdminReply(true, "removed node 4"));
                final DataInputStream in = new DataInputStream(socket.getInputStream());
                final byte[] length = in.readNBytes(4);
                assertEquals(4, length.length, "an answer, not a closed connection");
                final int n = ByteBuffer.wrap(length).order(ByteOrder.LITTLE_ENDIAN).getInt();
                final ControlFrame reply = ControlFrameCodec.decode(in.readNBytes(n));
                assertEquals("removed node 4", assertInstanceOf(AdminReply.class, reply).text());
            }
        }
    }
}

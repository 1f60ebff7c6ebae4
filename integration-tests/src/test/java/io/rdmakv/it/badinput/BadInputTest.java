package io.rdmakv.it.badinput;

import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.DataPortSession;
import io.rdmakv.it.support.DataPortWire.Response;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.DataPortWire;
import io.rdmakv.it.support.RawConnection;
import io.rdmakv.it.support.RawConnection.Outcome;
import io.rdmakv.it.support.SelfCheckingValue;
import io.rdmakv.it.support.SelfCheckingValue.Verdict;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.Trees;
import io.rdmakv.protocol.wire.ControlFrame;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Reject;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.TransportStatus;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static io.rdmakv.it.support.DataPortWire.FRAME_MESSAGE;
import static io.rdmakv.it.support.DataPortWire.TYPE_GET;
import static io.rdmakv.it.support.DataPortWire.TYPE_PUT;
import static io.rdmakv.it.support.DataPortWire.frame;
import static io.rdmakv.it.support.DataPortWire.getBody;
import static io.rdmakv.it.support.DataPortWire.message;
import static io.rdmakv.it.support.DataPortWire.putBody;
import static io.rdmakv.it.support.DataPortWire.request;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Bad input against a running server process, on both of its ports. Each case states what the server must do:
 * answer with an error (which one) and keep the connection, or close the connection (with or without a REJECT
 * first). After every case a bystander client that stayed connected throughout still reads and writes, and the
 * reference data stored before the attacks is intact.
 */
@ExtendWith(ProcessJanitor.class)
class BadInputTest
{
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int REFERENCE_KEYS = 100;

    private static Path dir;
    private static ServerProcess server;
    private static KvClient bystander;
    private static int round;

    @BeforeAll
    static void startServerAndStoreReferenceData() throws IOException
    {
        dir = Files.createTempDirectory("rdmakv-badinput-");
        // Always TCP: the data-port cases speak the TCP transport's framing on raw sockets.
        server = ServerProcess.builder(dir.resolve("data")).name("badinput").setting("transport", "tcp").start();
        bystander = KvClient.builder().server(server.seed()).transport("tcp").requestTimeout(WAIT).build();
        for (int k = 0; k < REFERENCE_KEYS; k++)
        {
            bystander.put(referenceKey(k), SelfCheckingValue.encode(referenceKey(k), k, 64 + k));
        }
    }

    @AfterAll
    static void stop() throws IOException
    {
        if (bystander != null)
        {
            bystander.close();
        }
        if (server != null)
        {
            server.kill();
        }
        Trees.delete(dir);
    }

    /** The server survived, still serves the connected bystander and a new client, and lost nothing. */
    @AfterEach
    void serverStillServesAndLostNothing()
    {
        assertTrue(server.isAlive(), "the server process died" + server.diagnosis());
        final byte[] key = ("badinput/bystander-" + round++).getBytes(StandardCharsets.UTF_8);
        bystander.put(key, key);
        assertArrayEquals(key, bystander.get(key), "the bystander client stopped working" + server.diagnosis());
        try (KvClient fresh = KvClient.builder().server(server.seed()).transport("tcp").requestTimeout(WAIT).build())
        {
            for (int k = 0; k < REFERENCE_KEYS; k++)
            {
                assertEquals(Verdict.OK, SelfCheckingValue.check(referenceKey(k), fresh.get(referenceKey(k))),
                    "reference key " + k + " damaged or lost");
            }
        }
    }

    // ---------------------------------------------------------------- control plane (Netty, HELLO/WELCOME/REJECT)

    @Test
    @Timeout(60)
    void controlPlaneShouldWelcomeAWellFormedHello() throws IOException
    {
        try (RawConnection c = RawConnection.open(server.controlAddress()))
        {
            c.send(controlFrame(ControlFrameCodec.encode(new Hello(ControlFrameCodec.PROTOCOL_VERSION,
                List.of("tcp"), new byte[0]))));
            assertInstanceOf(Welcome.class, readControlFrame(c), "the baseline for the bad cases below");
        }
    }

    @Test
    @Timeout(60)
    void controlPlaneShouldRejectRandomBytesAndClose() throws IOException
    {
        try (RawConnection c = RawConnection.open(server.controlAddress()))
        {
            c.sendQuietly(randomBytes(1, 4096));
            assertRejectedAndClosed(c, Status.MALFORMED);
        }
    }

    @Test
    @Timeout(60)
    void controlPlaneShouldCloseOnATruncatedFrame()
    {
        final byte[] hello = ControlFrameCodec.encode(new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp"),
            new byte[0]));
        final byte[] framed = controlFrame(hello);
        try (RawConnection c = RawConnection.open(server.controlAddress()))
        {
            // The prefix promises the whole HELLO; only half arrives, then EOF: no WELCOME, connection closed.
            c.send(Arrays.copyOf(framed, 4 + hello.length / 2)).shutdownOutput();
            assertEquals(Outcome.CLOSED, c.awaitClose(WAIT));
            assertEquals(0, c.discardedBytes(), "half a HELLO gets no WELCOME");
        }
    }

    @Test
    @Timeout(60)
    void controlPlaneShouldRejectATwoGibLengthPrefixAndClose() throws IOException
    {
        // 0x80000000 (2 GiB as an unsigned u32, negative as Java's int) and 0x7FFFFFFF (2 GiB - 1): never an attempt
        // to buffer the frame; a REJECT(MALFORMED), then the connection is closed.
        for (final int prefix : new int[] {Integer.MIN_VALUE, Integer.MAX_VALUE})
        {
            try (RawConnection c = RawConnection.open(server.controlAddress()))
            {
                c.sendQuietly(lengthPrefix(prefix));
                c.sendQuietly(new byte[64]);
                assertRejectedAndClosed(c, Status.MALFORMED);
            }
        }
    }

    @Test
    @Timeout(60)
    void controlPlaneShouldRejectAnUnknownFrameTypeAndClose() throws IOException
    {
        final byte[] frame = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
            .putInt(ControlFrameCodec.MAGIC).putShort((short)ControlFrameCodec.PROTOCOL_VERSION).put((byte)99)
            .put((byte)0).array();
        try (RawConnection c = RawConnection.open(server.controlAddress()))
        {
            c.send(controlFrame(frame));
            assertRejectedAndClosed(c, Status.UNKNOWN_TYPE);
        }
    }

    @Test
    @Timeout(60)
    void controlPlaneShouldRejectAWrongProtocolVersionAndClose() throws IOException
    {
        try (RawConnection c = RawConnection.open(server.controlAddress()))
        {
            c.send(controlFrame(ControlFrameCodec.encode(new Hello(99, List.of("tcp"), new byte[0]))));
            final Reject reject = assertInstanceOf(Reject.class, readControlFrame(c));
            assertEquals(Status.UNSUPPORTED_VERSION, reject.status(), reject.message());
            assertTrue(reject.message().contains("99"), "the REJECT names the version it refused: " + reject.message());
            assertEquals(Outcome.CLOSED, c.awaitClose(WAIT));
        }
    }

    // ---------------------------------------------------------------- data port (TCP transport frames + messages)

    @Test
    @Timeout(60)
    void dataPortShouldAnswerAWellFormedRequest() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            c.send(request(TYPE_GET, 77, getBody(referenceKey(3))));
            final Response response = DataPortWire.readResponse(c, WAIT);
            assertEquals(77, response.correlationId());
            assertEquals(Status.OK.code(), response.status());
            assertEquals(Verdict.OK, SelfCheckingValue.check(referenceKey(3), response.value()));
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldRefuseRequestsBeforeAttachAndClose() throws IOException
    {
        try (RawConnection c = RawConnection.open(server.dataAddress()))
        {
            c.send(request(TYPE_GET, 501, getBody(referenceKey(2))));
            final Response refused = DataPortWire.readResponse(c, WAIT);
            assertEquals(Status.UNAUTHENTICATED.code(), refused.status(), "no request is served before ATTACH");
            assertTrue(SelfCheckingValue.check(referenceKey(2), refused.value()) != Verdict.OK,
                "a refused request must not leak the value");
            assertEquals(Outcome.CLOSED, c.awaitClose(WAIT));
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldRefuseAForgedOrReusedTicketAndClose() throws IOException
    {
        try (RawConnection c = RawConnection.open(server.dataAddress()))
        {
            c.send(DataPortWire.attach(502, new byte[16]));
            assertEquals(Status.UNAUTHENTICATED.code(), DataPortWire.readResponse(c, WAIT).status());
            assertEquals(Outcome.CLOSED, c.awaitClose(WAIT));
        }
        final byte[] ticket = DataPortSession.handshake(server, WAIT).sessionTicket();
        try (RawConnection first = RawConnection.open(server.dataAddress()))
        {
            first.send(DataPortWire.attach(503, ticket));
            assertEquals(Status.OK.code(), DataPortWire.readResponse(first, WAIT).status());
            try (RawConnection second = RawConnection.open(server.dataAddress()))
            {
                second.send(DataPortWire.attach(504, ticket));
                assertEquals(Status.UNAUTHENTICATED.code(), DataPortWire.readResponse(second, WAIT).status(),
                    "a ticket opens one endpoint only");
                assertEquals(Outcome.CLOSED, second.awaitClose(WAIT));
            }
            assertConnectionStillServes(first);
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldCloseOnRandomBytes() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            // First byte 0x7F: the length prefix reads as ~2 GiB, so the server cannot mistake this for a frame.
            final byte[] garbage = randomBytes(2, 4096);
            garbage[0] = 0x7F;
            c.sendQuietly(garbage);
            assertClosedWithoutAnswer(c);
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldCloseOnATruncatedFrame() throws IOException
    {
        final byte[] whole = request(TYPE_PUT, 5, putBody(bytes("truncated"), new byte[1000]));
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            c.send(Arrays.copyOf(whole, whole.length / 2)).shutdownOutput();
            assertClosedWithoutAnswer(c);
        }
        assertNull(bystander.get(bytes("truncated")), "half a PUT must store nothing");
    }

    @Test
    @Timeout(60)
    void dataPortShouldCloseOnATwoGibLengthPrefix() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            c.sendQuietly(ByteBuffer.allocate(5).order(ByteOrder.BIG_ENDIAN).putInt(Integer.MIN_VALUE)
                .put(FRAME_MESSAGE).array());
            c.sendQuietly(new byte[1024]);
            assertClosedWithoutAnswer(c);
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldCloseOnAnUnknownTransportFrameType() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            c.sendQuietly(frame((byte)42, new byte[16]));
            assertClosedWithoutAnswer(c);
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldAnswerUnknownMessageTypeAndKeepTheConnection() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            c.send(frame(FRAME_MESSAGE, message(1, 0x7E, 1001, 4, new byte[4])));
            final Response unknown = DataPortWire.readResponse(c, WAIT);
            assertEquals(1001, unknown.correlationId());
            assertEquals(Status.UNKNOWN_TYPE.code(), unknown.status());
            assertConnectionStillServes(c);
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldAnswerWrongProtocolVersionAndKeepTheConnection() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            final byte[] body = getBody(referenceKey(1));
            c.send(frame(FRAME_MESSAGE, message(9, TYPE_GET, 1002, body.length, body)));
            final Response wrongVersion = DataPortWire.readResponse(c, WAIT);
            assertEquals(1002, wrongVersion.correlationId());
            assertEquals(Status.UNSUPPORTED_VERSION.code(), wrongVersion.status());
            assertConnectionStillServes(c);
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldAnswerMalformedMessagesAndKeepTheConnection() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            // A body length that disagrees with the bytes received, both ways.
            final byte[] body = getBody(bytes("k"));
            c.send(frame(FRAME_MESSAGE, message(1, TYPE_GET, 2001, body.length + 100, body)));
            assertEquals(Status.MALFORMED.code(), DataPortWire.readResponse(c, WAIT).status());
            c.send(frame(FRAME_MESSAGE, message(1, TYPE_GET, 2002, -1, body)));
            assertEquals(Status.MALFORMED.code(), DataPortWire.readResponse(c, WAIT).status());
            // A key length beyond the body, and a message shorter than its header.
            final byte[] lying = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putShort((short)900)
                .putShort((short)0).putInt(0).array();
            c.send(request(TYPE_GET, 2003, lying));
            assertEquals(Status.MALFORMED.code(), DataPortWire.readResponse(c, WAIT).status());
            c.send(frame(FRAME_MESSAGE, new byte[] {1, 1, 0}));
            final Response tooShort = DataPortWire.readResponse(c, WAIT);
            assertEquals(Status.MALFORMED.code(), tooShort.status());
            assertConnectionStillServes(c);
        }
    }

    @Test
    @Timeout(60)
    void dataPortShouldRefuseOversizedKeysAndValuesFromAClientThatSkipsItsOwnChecks() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            final byte[] longKey = new byte[1025];
            Arrays.fill(longKey, (byte)'K');
            c.send(request(TYPE_PUT, 3001, putBody(longKey, bytes("v"))));
            final Response keyTooLarge = DataPortWire.readResponse(c, WAIT);
            assertEquals(3001, keyTooLarge.correlationId());
            assertEquals(Status.KEY_TOO_LARGE.code(), keyTooLarge.status());

            c.send(request(TYPE_PUT, 3002, putBody(bytes("badinput/huge"), new byte[(1 << 20) + 1])));
            final Response valueTooLarge = DataPortWire.readResponse(c, WAIT);
            assertEquals(3002, valueTooLarge.correlationId());
            assertEquals(Status.VALUE_TOO_LARGE.code(), valueTooLarge.status());
            assertConnectionStillServes(c);
        }
        assertNull(bystander.get(bytes("badinput/huge")), "a refused PUT stores nothing");
    }

    @Test
    @Timeout(60)
    void dataPortShouldRefuseEmulatedReadsWithAForgedTokenOrOutsideTheRegion() throws IOException
    {
        try (RawConnection c = DataPortSession.openAttached(server, WAIT))
        {
            // Region ids are small integers; a guessed token never matches the server's secret one.
            for (int region = 0; region < 4; region++)
            {
                c.send(DataPortWire.readRequest(40 + region, region, 64, 0x1234_5678_9ABC_DEF0L, 0x1000));
                final DataPortWire.Frame answer = DataPortWire.readFrame(c, WAIT);
                assertEquals(DataPortWire.FRAME_READ_RESPONSE, answer.type());
                assertEquals(40 + region, answer.be().getLong(0));
                final int status = answer.be().getInt(8);
                assertTrue(status == TransportStatus.INVALID_RKEY.code() || status == TransportStatus.OUT_OF_BOUNDS.code(),
                    "a forged read must be refused, got status " + status);
                assertEquals(12, answer.body().length, "a refused read carries no data");
            }
            assertConnectionStillServes(c);
        }
    }

    /** Control plane: a REJECT with {@code status}, then the server closes the connection. */
    private static void assertRejectedAndClosed(final RawConnection c, final Status status) throws IOException
    {
        final Reject reject = assertInstanceOf(Reject.class, readControlFrame(c));
        assertEquals(status, reject.status(), reject.message());
        assertEquals(Outcome.CLOSED, c.awaitClose(WAIT), "the server must close after a REJECT");
    }

    /** Data port, garbage framing: the transport closes the connection without a byte of answer. */
    private static void assertClosedWithoutAnswer(final RawConnection c)
    {
        assertEquals(Outcome.CLOSED, c.awaitClose(WAIT));
        assertEquals(0, c.discardedBytes(), "garbage framing gets no answer, only the close");
    }

    private static void assertConnectionStillServes(final RawConnection c) throws IOException
    {
        c.send(request(TYPE_GET, 9999, getBody(referenceKey(0))));
        final Response ok = DataPortWire.readResponse(c, WAIT);
        assertEquals(9999, ok.correlationId());
        assertEquals(Status.OK.code(), ok.status(), "the same connection must go on serving after an error answer");
        assertEquals(Verdict.OK, SelfCheckingValue.check(referenceKey(0), ok.value()));
    }

    // ---------------------------------------------------------------- helpers

    /** The control plane's u32 length prefix: little-endian like every other field of the protocol. */
    private static byte[] lengthPrefix(final int length)
    {
        return ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(length).array();
    }

    private static byte[] controlFrame(final byte[] frame)
    {
        final byte[] framed = Arrays.copyOf(lengthPrefix(frame.length), 4 + frame.length);
        System.arraycopy(frame, 0, framed, 4, frame.length);
        return framed;
    }

    private static ControlFrame readControlFrame(final RawConnection c) throws IOException
    {
        final int length = ByteBuffer.wrap(c.readExactly(4, WAIT)).order(ByteOrder.LITTLE_ENDIAN).getInt();
        assertTrue(length > 0 && length <= ControlFrameCodec.MAX_FRAME_LENGTH, "control frame length " + length);
        return ControlFrameCodec.decode(c.readExactly(length, WAIT));
    }

    private static byte[] referenceKey(final int k)
    {
        return ("badinput/reference-" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] randomBytes(final long seed, final int n)
    {
        final byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }
}

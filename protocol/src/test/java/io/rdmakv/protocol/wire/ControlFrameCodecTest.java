package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.PoolGeometry;
import org.agrona.ExpandableArrayBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ControlFrameCodecTest
{
    private static final Hello HELLO = new Hello(1, List.of("verbs", "tcp"),
        "token-\u00e9".getBytes(StandardCharsets.UTF_8));

    private static final Welcome WELCOME = new Welcome(
        3,
        PoolGeometry.plan(1L << 30, 1 << 18),
        new byte[] {1, 2, 0, 0, 7, 0, 0, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 64, 0, 0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9},
        12,
        0x7F00_1234_5000L,
        List.of(
            new TransportAddress("verbs", "10.0.0.3", 7471, new byte[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9}),
            new TransportAddress("tcp", "::1", 7472, new byte[0])),
        ProtocolLimits.MAX_KEY_LENGTH,
        ProtocolLimits.DEFAULT_MAX_VALUE_LENGTH,
        List.of(
            new ClusterNode(1, "node-1.example", 7400, 0, 5460),
            new ClusterNode(2, "node-2.example", 7400, 5461, 10922),
            new ClusterNode(3, "10.0.0.3", 7400, 10923, 16383)),
        new byte[] {(byte)0xA1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, (byte)0xF0});

    private static final Reject REJECT = new Reject(Status.UNAUTHENTICATED, "bad token \u2014 see server log");

    private static final Admin ADMIN = new Admin(new byte[] {7, 8}, "failover 0 2");

    private static final AdminReply ADMIN_REPLY = new AdminReply(true, "{\"epoch\":4}");

    /** The test WELCOME with other transport addresses. */
    static Welcome welcomeWith(final List<TransportAddress> transports)
    {
        return new Welcome(WELCOME.nodeId(), WELCOME.geometry(), WELCOME.remoteKey(), WELCOME.layoutEpoch(),
            WELCOME.poolHeaderAddress(), transports, WELCOME.maxKeyLength(), WELCOME.maxValueLength(),
            WELCOME.clusterMap(), WELCOME.sessionTicket());
    }

    @Test
    void shouldRoundTripEveryFrame()
    {
        for (final ControlFrame frame : List.of(HELLO, WELCOME, REJECT, ADMIN, ADMIN_REPLY))
        {
            final byte[] encoded = ControlFrameCodec.encode(frame);
            final ControlFrame decoded = ControlFrameCodec.decode(encoded);
            assertEquals(frame, decoded);
            assertEquals(frame.frameType(), encoded[6]);
            assertEquals(ControlFrameCodec.MAGIC, new UnsafeBuffer(encoded).getInt(0, ByteOrder.LITTLE_ENDIAN));
            assertEquals("RKVC", new String(encoded, 0, 4, StandardCharsets.US_ASCII));
        }
        final Welcome w = (Welcome)ControlFrameCodec.decode(ControlFrameCodec.encode(WELCOME));
        assertArrayEquals(WELCOME.remoteKey(), w.remoteKey());
        assertArrayEquals(WELCOME.sessionTicket(), w.sessionTicket());
        assertEquals(2, w.ownerOf(5461).nodeId());
        assertEquals(3, w.ownerOf(16383).nodeId());
    }

    @Test
    void shouldCarryEachRangesPrimaryBackupsAndEpochAndTheClusterEpoch()
    {
        final Welcome cluster = new Welcome(2, WELCOME.geometry(), WELCOME.remoteKey(), 1, 0x1000L,
            WELCOME.transports(), 1024, 4096,
            List.of(new ClusterNode(1, "127.0.0.1", 7400, 0, 8191, 7, List.of(2, 3)),
                new ClusterNode(2, "127.0.0.1", 7402, 8192, 16383, 9, List.of())),
            WELCOME.sessionTicket(), 9);
        final Welcome decoded = (Welcome)ControlFrameCodec.decode(ControlFrameCodec.encode(cluster));
        assertEquals(cluster, decoded);
        assertEquals(9, decoded.clusterEpoch());
        assertEquals(List.of(2, 3), decoded.ownerOf(100).backups());
        assertEquals(7, decoded.ownerOf(100).rangeEpoch());
        // The last range's epoch is the member count's 2 bytes, the cluster epoch's 8 bytes and 1 backup count byte
        // before the end: make it negative and the frame is refused.
        final byte[] bytes = ControlFrameCodec.encode(cluster);
        final int rangeEpochAt = bytes.length - 2 - 8 - 1 - 8;
        bytes[rangeEpochAt + 7] = (byte)0x80;
        assertError(ErrorCode.MALFORMED, bytes);
        final byte[] negativeClusterEpoch = ControlFrameCodec.encode(cluster);
        negativeClusterEpoch[negativeClusterEpoch.length - 2 - 1] = (byte)0x80;
        assertError(ErrorCode.MALFORMED, negativeClusterEpoch);
    }

    @Test
    void shouldCarryEveryMemberAlsoThoseThatArePrimaryOfNothing()
    {
        final List<MemberAddress> members = List.of(new MemberAddress(1, "127.0.0.1", 7400),
            new MemberAddress(2, "10.0.0.2", 7402), new MemberAddress(4, "node-4.example", 7430));
        final Welcome cluster = new Welcome(2, WELCOME.geometry(), WELCOME.remoteKey(), 1, 0x1000L,
            WELCOME.transports(), 1024, 4096, List.of(new ClusterNode(1, "127.0.0.1", 7400, 0, 16383, 7, List.of(2))),
            WELCOME.sessionTicket(), 9, members);
        final Welcome decoded = (Welcome)ControlFrameCodec.decode(ControlFrameCodec.encode(cluster));
        assertEquals(members, decoded.members());
        assertEquals(cluster, decoded);
        // A member count beyond what the frame holds is refused, not read past the end.
        final byte[] bytes = ControlFrameCodec.encode(cluster);
        final int countAt = bytes.length - (4 + 2 + 1 + 9) - (4 + 2 + 1 + 8) - (4 + 2 + 1 + 14) - 2;
        bytes[countAt] = (byte)0x7F;
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> ControlFrameCodec.decode(bytes)).errorCode());
    }

    @Test
    void shouldCarryASCRAMLoginBesideTheSecretAndStayReadableWithout()
    {
        final Hello plain = new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of("tcp"), new byte[] {1, 2});
        final Hello login = plain.withScram("n,,n=alice,r=abc");
        assertEquals(login, ControlFrameCodec.decode(ControlFrameCodec.encode(login)));
        assertEquals(plain, ControlFrameCodec.decode(ControlFrameCodec.encode(plain)));
        // Without a login the bytes are those of an older client: no trailing field.
        assertEquals(ControlFrameCodec.encode(plain).length + 2 + 16, ControlFrameCodec.encode(login).length);
        final ScramMessage challenge = new ScramMessage("r=abcdef,s=AAAA,i=4096");
        assertEquals(challenge, ControlFrameCodec.decode(ControlFrameCodec.encode(challenge)));
        assertFalse(login.toString().contains("alice"));
    }

    @Test
    void shouldEncodeAtAnOffsetIntoAnAgronaBuffer()
    {
        final ExpandableArrayBuffer buffer = new ExpandableArrayBuffer(16);
        final int length = ControlFrameCodec.encode(WELCOME, buffer, 100);
        assertEquals(WELCOME, ControlFrameCodec.decode(buffer, 100, length));
    }

    @Test
    void shouldRejectEveryTruncationWithATypedError()
    {
        for (final ControlFrame frame : List.of(HELLO, WELCOME, REJECT, ADMIN, ADMIN_REPLY))
        {
            final byte[] encoded = ControlFrameCodec.encode(frame);
            final UnsafeBuffer buffer = new UnsafeBuffer(encoded);
            for (int length = 0; length < encoded.length; length++)
            {
                final int truncated = length;
                final ProtocolException ex = assertThrows(ProtocolException.class,
                    () -> ControlFrameCodec.decode(buffer, 0, truncated), frame.getClass() + " at " + length);
                assertEquals(true, ex.errorCode() == ErrorCode.TRUNCATED || ex.errorCode() == ErrorCode.BAD_LENGTH,
                    frame.getClass().getSimpleName() + " at " + length + ": " + ex.getMessage());
            }
        }
    }

    @Test
    void shouldRejectBadHeaderFields()
    {
        final byte[] welcome = ControlFrameCodec.encode(WELCOME);
        final byte[] badMagic = welcome.clone();
        badMagic[0] = 'X';
        assertError(ErrorCode.BAD_MAGIC, badMagic);

        final byte[] badVersion = welcome.clone();
        badVersion[4] = 1; // version 1 maps had no epochs or backups
        assertError(ErrorCode.UNSUPPORTED_VERSION, badVersion);

        final byte[] badType = welcome.clone();
        badType[6] = 42;
        assertError(ErrorCode.UNKNOWN_TYPE, badType);

        final byte[] trailing = java.util.Arrays.copyOf(welcome, welcome.length + 1);
        assertError(ErrorCode.BAD_LENGTH, trailing);

        final ProtocolException tooLarge = assertThrows(ProtocolException.class, () -> ControlFrameCodec.decode(
            new UnsafeBuffer(new byte[ProtocolLimits.MAX_CONTROL_FRAME_LENGTH + 1]), 0,
            ProtocolLimits.MAX_CONTROL_FRAME_LENGTH + 1));
        assertEquals(ErrorCode.FRAME_TOO_LARGE, tooLarge.errorCode());
    }

    @Test
    void shouldDecodeHelloOfAnotherVersionSoItCanBeRejectedPrecisely()
    {
        final Hello future = new Hello(9, List.of("tcp"), new byte[0]);
        final Hello decoded = (Hello)ControlFrameCodec.decode(ControlFrameCodec.encode(future));
        assertEquals(9, decoded.protocolVersion());
    }

    @Test
    void shouldRejectHugeCountsAndLengthsWithoutAllocating()
    {
        // HELLO claiming 255 transports with 3 bytes behind it.
        final UnsafeBuffer hello = new UnsafeBuffer(new byte[11]);
        hello.putInt(0, ControlFrameCodec.MAGIC, ByteOrder.LITTLE_ENDIAN);
        hello.putShort(4, (short)1, ByteOrder.LITTLE_ENDIAN);
        hello.putByte(6, (byte)ControlFrame.TYPE_HELLO);
        hello.putByte(8, (byte)255);
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> ControlFrameCodec.decode(hello, 0, 11)).errorCode());

        // WELCOME whose transport count is 65535.
        final byte[] welcome = ControlFrameCodec.encode(WELCOME);
        final int transportCountAt = 8 + 32 + PoolGeometry.ENCODED_LENGTH + Welcome.SESSION_TICKET_LENGTH + 2 +
            WELCOME.remoteKey().length;
        final UnsafeBuffer w = new UnsafeBuffer(welcome);
        assertEquals(2, w.getShort(transportCountAt, ByteOrder.LITTLE_ENDIAN), "test knows the layout");
        w.putShort(transportCountAt, (short)0xFFFF, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.BAD_LENGTH, welcome);

        // Remote key length that runs past the frame.
        final byte[] rkey = ControlFrameCodec.encode(WELCOME);
        final int rkeyLengthAt = 8 + 32 + PoolGeometry.ENCODED_LENGTH + Welcome.SESSION_TICKET_LENGTH;
        new UnsafeBuffer(rkey).putShort(rkeyLengthAt, (short)0xFFFF, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.TRUNCATED, rkey);

        // Geometry that makes no sense.
        final byte[] geometry = ControlFrameCodec.encode(WELCOME);
        new UnsafeBuffer(geometry).putLong(8 + 32 + 16, 3, ByteOrder.LITTLE_ENDIAN);
        assertError(ErrorCode.BAD_GEOMETRY, geometry);
    }

    @Test
    void shouldRejectInvalidUtf8AndUnknownStatus()
    {
        final byte[] reject = ControlFrameCodec.encode(new Reject(Status.BUSY, "ab"));
        final byte[] badUtf8 = reject.clone();
        badUtf8[badUtf8.length - 1] = (byte)0xC3;
        assertError(ErrorCode.MALFORMED, badUtf8);

        final byte[] badStatus = reject.clone();
        badStatus[8] = 99;
        assertError(ErrorCode.MALFORMED, badStatus);
    }

    @Test
    void shouldCarryTheSessionTicketAtOffsetEightyAndNeverPrintIt()
    {
        final byte[] encoded = ControlFrameCodec.encode(WELCOME);
        final byte[] atEighty = new byte[Welcome.SESSION_TICKET_LENGTH];
        System.arraycopy(encoded, 80, atEighty, 0, atEighty.length);
        assertArrayEquals(WELCOME.sessionTicket(), atEighty);

        // A ticket is part of the frame's identity: another ticket, another WELCOME.
        final byte[] other = WELCOME.sessionTicket();
        other[0] ^= 1;
        final byte[] changed = encoded.clone();
        changed[80] ^= 1;
        assertArrayEquals(other, ((Welcome)ControlFrameCodec.decode(changed)).sessionTicket());
        assertNotEquals(WELCOME, ControlFrameCodec.decode(changed));

        assertFalse(WELCOME.toString().contains("-95"), "no ticket bytes in toString");
        assertEquals(IllegalArgumentException.class, assertThrows(IllegalArgumentException.class,
            () -> new Welcome(1, WELCOME.geometry(), new byte[32], 1, 0, List.of(), 16, 16, List.of(),
                new byte[15])).getClass());
    }

    @Test
    void shouldRefuseToEncodeFramesOverTheMaximum()
    {
        final List<TransportAddress> many = new ArrayList<>();
        for (int i = 0; i < 2; i++)
        {
            many.add(new TransportAddress("tcp", "h", 1, new byte[40_000]));
        }
        final Welcome huge = new Welcome(1, WELCOME.geometry(), new byte[32], 1, 0, many, 16, 16, List.of(),
            new byte[Welcome.SESSION_TICKET_LENGTH]);
        assertEquals(ErrorCode.FRAME_TOO_LARGE,
            assertThrows(ProtocolException.class, () -> ControlFrameCodec.encode(huge)).errorCode());
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> ControlFrameCodec.encode(new Hello(1, List.of(""), new byte[0]))).errorCode());
    }

    @Test
    void shouldOnlyEverThrowProtocolExceptionOnMutatedFrames()
    {
        final Random random = new Random(23);
        final List<byte[]> seeds = List.of(ControlFrameCodec.encode(HELLO), ControlFrameCodec.encode(WELCOME),
            ControlFrameCodec.encode(REJECT));
        for (int i = 0; i < 5_000; i++)
        {
            final byte[] frame = seeds.get(i % 3).clone();
            final int mutations = 1 + random.nextInt(4);
            for (int m = 0; m < mutations; m++)
            {
                frame[8 + random.nextInt(frame.length - 8)] = (byte)random.nextInt();
            }
            try
            {
                assertInstanceOf(ControlFrame.class, ControlFrameCodec.decode(frame));
            }
            catch (final ProtocolException expected)
            {
                // The only permitted failure.
            }
        }
        assertNull(WELCOME.ownerOf(ProtocolLimits.HASH_SLOT_COUNT));
    }

    private static void assertError(final ErrorCode expected, final byte[] frame)
    {
        final ProtocolException ex = assertThrows(ProtocolException.class, () -> ControlFrameCodec.decode(frame));
        assertEquals(expected, ex.errorCode(), ex.getMessage());
    }
}

package io.rdmakv.transport.verbs;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The verbs transport's own wire formats: the Send immediate and the QP handshake. */
class ProtocolEncodingTest
{
    @Test
    void shouldRoundTripCreditsAndFlagsInTheImmediate()
    {
        final int imm = ImmediateData.encode(300, true, false);
        assertEquals(300, ImmediateData.credits(imm));
        assertTrue(ImmediateData.isMore(imm));
        assertFalse(ImmediateData.isCreditOnly(imm));
        assertFalse(ImmediateData.hasUnknownBits(imm));
        final int credit = ImmediateData.encode(ImmediateData.MAX_CREDITS, false, true);
        assertEquals(ImmediateData.MAX_CREDITS, ImmediateData.credits(credit));
        assertTrue(ImmediateData.isCreditOnly(credit));
        assertFalse(ImmediateData.isMore(credit));
        assertTrue(ImmediateData.hasUnknownBits(1 << 20));
        assertThrows(IllegalArgumentException.class, () -> ImmediateData.encode(ImmediateData.MAX_CREDITS + 1, false,
            false));
        assertThrows(IllegalArgumentException.class, () -> ImmediateData.encode(-1, false, false));
    }

    @Test
    void shouldRoundTripHello()
    {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[64]);
        final byte[] gid = new byte[16];
        for (int i = 0; i < 16; i++)
        {
            gid[i] = (byte)(i * 7);
        }
        final int length = HandshakeMessage.encodeHello(b, 4, 0x1234, 3, 1, 0xABCDEF, 0x123456, 128, 4096, gid);
        assertEquals(HandshakeMessage.HELLO_LENGTH, length);
        final HandshakeMessage m = new HandshakeMessage().wrapAndValidate(b, 4, length);
        assertEquals(HandshakeMessage.TYPE_HELLO, m.type());
        assertEquals(0x1234, m.lid());
        assertEquals(3, m.activeMtu());
        assertEquals(1, m.port());
        assertEquals(0xABCDEF, m.qpNumber());
        assertEquals(0x123456, m.psn());
        assertEquals(128, m.recvDepth());
        assertEquals(4096, m.fragmentBytes());
        final byte[] back = new byte[16];
        m.gid(back);
        assertArrayEquals(gid, back);
    }

    @Test
    void shouldRejectMalformedHandshakesWithATypedError()
    {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[64]);
        final byte[] gid = new byte[16];
        final HandshakeMessage m = new HandshakeMessage();
        assertThrows(HandshakeMessage.HandshakeException.class, () -> m.wrapAndValidate(b, 0, 3));
        assertThrows(HandshakeMessage.HandshakeException.class, () -> m.wrapAndValidate(b, 0, 8), "zero magic");

        HandshakeMessage.encodeHello(b, 0, 1, 3, 1, 5, 6, 128, 4096, gid);
        assertThrows(HandshakeMessage.HandshakeException.class, () -> m.wrapAndValidate(b, 0, 20), "short HELLO");

        HandshakeMessage.encodeHello(b, 0, 1, 9, 1, 5, 6, 128, 4096, gid);
        assertThrows(HandshakeMessage.HandshakeException.class, () -> m.wrapAndValidate(b, 0, 44), "bad MTU");

        HandshakeMessage.encodeHello(b, 0, 1, 3, 1, 1 << 24, 6, 128, 4096, gid);
        assertThrows(HandshakeMessage.HandshakeException.class, () -> m.wrapAndValidate(b, 0, 44), "wide QPN");

        HandshakeMessage.encodeHello(b, 0, 1, 3, 1, 5, 6, 1, 4096, gid);
        assertThrows(HandshakeMessage.HandshakeException.class, () -> m.wrapAndValidate(b, 0, 44), "depth 1");

        HandshakeMessage.encodeHello(b, 0, 1, 3, 1, 5, 6, 128, 4096, gid);
        b.putByte(4, (byte)2);
        assertThrows(HandshakeMessage.HandshakeException.class, () -> m.wrapAndValidate(b, 0, 44), "version 2");

        HandshakeMessage.encodeHeader(b, 0, 42);
        assertThrows(HandshakeMessage.HandshakeException.class, () -> m.wrapAndValidate(b, 0, 8), "type 42");

        HandshakeMessage.encodeHeader(b, 0, HandshakeMessage.TYPE_READY);
        assertEquals(HandshakeMessage.TYPE_READY, m.wrapAndValidate(b, 0, 8).type());
    }

    @Test
    void shouldCarryARefusalReasonAsPrintableAsciiWithinOneFrame()
    {
        final UnsafeBuffer b = new UnsafeBuffer(new byte[HandshakeMessage.HEADER_LENGTH + HandshakeMessage.MAX_REASON]);
        final int length = HandshakeMessage.encodeRefuse(b, 0, "no room; raise verbs.maxEndpoints");
        final HandshakeMessage m = new HandshakeMessage().wrapAndValidate(b, 0, length);
        assertEquals(HandshakeMessage.TYPE_REFUSE, m.type());
        assertEquals("no room; raise verbs.maxEndpoints", m.reason());

        assertEquals("caf? ?", new HandshakeMessage().wrapAndValidate(b, 0,
            HandshakeMessage.encodeRefuse(b, 0, "caf\u00e9 \n")).reason());

        final String longReason = "x".repeat(1000);
        final int cut = HandshakeMessage.encodeRefuse(b, 0, longReason);
        assertEquals(HandshakeMessage.HEADER_LENGTH + HandshakeMessage.MAX_REASON, cut);
        final String reason = new HandshakeMessage().wrapAndValidate(b, 0, cut).reason();
        assertEquals(HandshakeMessage.MAX_REASON, reason.length());
        assertTrue(reason.endsWith("..."));
        // With Netty's 2-byte length prefix the longest REFUSE is exactly the largest frame the decoder accepts.
        assertEquals(HandshakeMessage.MAX_FRAME, cut + 2);

        final UnsafeBuffer big = new UnsafeBuffer(new byte[512]);
        HandshakeMessage.encodeHeader(big, 0, HandshakeMessage.TYPE_REFUSE);
        assertThrows(HandshakeMessage.HandshakeException.class,
            () -> new HandshakeMessage().wrapAndValidate(big, 0, 300), "REFUSE longer than a frame");
    }

    @Test
    void shouldMapErrorCompletionsToReadableStatuses()
    {
        assertEquals(io.rdmakv.transport.TransportStatus.PEER_FAILED,
            VerbsEndpoint.mapStatus(io.rdmakv.transport.verbs.ffi.VerbsLayout.WC_RETRY_EXC_ERR));
        assertEquals(io.rdmakv.transport.TransportStatus.PEER_FAILED,
            VerbsEndpoint.mapStatus(io.rdmakv.transport.verbs.ffi.VerbsLayout.WC_RNR_RETRY_EXC_ERR));
        assertEquals(io.rdmakv.transport.TransportStatus.ACCESS_DENIED,
            VerbsEndpoint.mapStatus(io.rdmakv.transport.verbs.ffi.VerbsLayout.WC_REM_ACCESS_ERR));
        assertEquals(io.rdmakv.transport.TransportStatus.TRANSPORT_ERROR,
            VerbsEndpoint.mapStatus(io.rdmakv.transport.verbs.ffi.VerbsLayout.WC_LOC_PROT_ERR));
    }
}

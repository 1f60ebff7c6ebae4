package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class TransportAddressTest
{
    @Test
    void shouldCarryEachTransportsRemoteKeyAndHostIdentity()
    {
        final byte[] key = {1, 2, 3, 4, 5};
        final TransportAddress shm = TransportAddress.served("shm", "127.0.0.1", 7402, key, "boot:net:[4026531840]");
        final TransportAddress decoded = ((Welcome)ControlFrameCodec.decode(ControlFrameCodec.encode(
            ControlFrameCodecTest.welcomeWith(java.util.List.of(shm))))).transports().get(0);
        assertArrayEquals(key, decoded.remoteKey(new byte[] {9}));
        assertEquals("boot:net:[4026531840]", decoded.hostIdentity());
        assertEquals("", TransportAddress.served("tcp", "h", 1, key, "").hostIdentity());
    }

    @Test
    void shouldFallBackToTheWelcomesKeyForANodeServingOneTransport()
    {
        final TransportAddress tcp = new TransportAddress("tcp", "h", 1, new byte[0]);
        assertArrayEquals(new byte[] {9}, tcp.remoteKey(new byte[] {9}));
        assertEquals("", tcp.hostIdentity());
    }

    @Test
    void shouldRefuseABlobThatIsNotAKeyAndAnIdentity()
    {
        final TransportAddress lying = new TransportAddress("shm", "h", 1, new byte[] {(byte)200, 0, 1});
        assertEquals(ErrorCode.MALFORMED,
            assertThrows(ProtocolException.class, () -> lying.remoteKey(new byte[0])).errorCode());
        final TransportAddress shortIdentity = new TransportAddress("shm", "h", 1, new byte[] {1, 0, 7, 5, 'a'});
        assertEquals(ErrorCode.MALFORMED,
            assertThrows(ProtocolException.class, shortIdentity::hostIdentity).errorCode());
    }
}

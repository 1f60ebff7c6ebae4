package io.rdmakv.transport.base;

import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The argument checks every transport's send and read share. */
class OperationChecksTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
    private final RemoteKey tcpKey = new RemoteKey(RemoteKey.TRANSPORT_TCP, 1, 0x1000, 4096, 42);

    @Test
    void shouldCheckSendRangeThenSize()
    {
        assertNull(OperationChecks.checkSend(buffer, 0, 64, 64));
        assertNull(OperationChecks.checkSend(buffer, 64, 0, 64));
        assertEquals(TransportStatus.OUT_OF_BOUNDS, OperationChecks.checkSend(null, 0, 1, 64));
        assertEquals(TransportStatus.OUT_OF_BOUNDS, OperationChecks.checkSend(buffer, -1, 1, 64));
        assertEquals(TransportStatus.OUT_OF_BOUNDS, OperationChecks.checkSend(buffer, 1, 64, 64));
        assertEquals(TransportStatus.OUT_OF_BOUNDS, OperationChecks.checkSend(buffer, Integer.MAX_VALUE, 2, 64));
        assertEquals(TransportStatus.MESSAGE_TOO_LARGE, OperationChecks.checkSend(buffer, 0, 64, 63));
    }

    @Test
    void shouldCheckReadKeyThenSizeThenDestination()
    {
        assertNull(OperationChecks.checkRead(tcpKey, RemoteKey.TRANSPORT_TCP, 64, 64, buffer, 0));
        assertEquals(TransportStatus.INVALID_RKEY,
            OperationChecks.checkRead(null, RemoteKey.TRANSPORT_TCP, 8, 64, buffer, 0));
        assertEquals(TransportStatus.INVALID_RKEY,
            OperationChecks.checkRead(tcpKey, RemoteKey.TRANSPORT_SHM, 8, 64, buffer, 0));
        assertEquals(TransportStatus.MESSAGE_TOO_LARGE,
            OperationChecks.checkRead(tcpKey, RemoteKey.TRANSPORT_TCP, 65, 64, null, 0));
        assertEquals(TransportStatus.OUT_OF_BOUNDS,
            OperationChecks.checkRead(tcpKey, RemoteKey.TRANSPORT_TCP, -1, 64, buffer, 0));
        assertEquals(TransportStatus.OUT_OF_BOUNDS,
            OperationChecks.checkRead(tcpKey, RemoteKey.TRANSPORT_TCP, 8, 64, null, 0));
        assertEquals(TransportStatus.OUT_OF_BOUNDS,
            OperationChecks.checkRead(tcpKey, RemoteKey.TRANSPORT_TCP, 8, 64, buffer, 57));
    }
}

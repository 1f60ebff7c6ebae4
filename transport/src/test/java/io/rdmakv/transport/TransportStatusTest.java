package io.rdmakv.transport;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class TransportStatusTest
{
    @Test
    void shouldMapEveryCodeAndSentinelBackToItsStatus()
    {
        for (final TransportStatus s : TransportStatus.values())
        {
            assertEquals(s, TransportStatus.fromCode(s.code()));
            assertEquals(s, TransportStatus.fromSentinel(s.sentinel()));
        }
    }

    @Test
    void shouldAnswerTransportErrorForUnknownCodes()
    {
        assertEquals(TransportStatus.TRANSPORT_ERROR, TransportStatus.fromCode(-1));
        assertEquals(TransportStatus.TRANSPORT_ERROR, TransportStatus.fromCode(TransportStatus.values().length + 100));
        assertEquals(TransportStatus.TRANSPORT_ERROR, TransportStatus.fromCode(Integer.MIN_VALUE));
    }
}

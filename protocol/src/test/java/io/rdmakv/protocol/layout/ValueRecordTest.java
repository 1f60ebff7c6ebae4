package io.rdmakv.protocol.layout;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ValueRecordTest
{
    private static final byte[] VALUE = "hello record".getBytes(StandardCharsets.US_ASCII);

    @Test
    void shouldRoundTripFromArraysAndBuffers()
    {
        final byte[] record = ValueRecord.of(VALUE, 0xABCD_EF01_2345L, 1_700_000_000_123L);
        assertEquals(ValueRecord.HEADER_LENGTH + VALUE.length, record.length);
        assertEquals(0xABCD_EF01_2345L, ValueRecord.dataVersion(record));
        assertEquals(1_700_000_000_123L, ValueRecord.expiryMillis(record));
        assertArrayEquals(VALUE, ValueRecord.value(record));

        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[64]);
        ValueRecord.writeHeader(buffer, 5, 0xABCD_EF01_2345L, 1_700_000_000_123L);
        buffer.putBytes(5 + ValueRecord.HEADER_LENGTH, VALUE);
        ValueRecord.check(buffer, 5, ValueRecord.HEADER_LENGTH + VALUE.length);
        assertEquals(0xABCD_EF01_2345L, ValueRecord.dataVersion(buffer, 5));
        assertEquals(1_700_000_000_123L, ValueRecord.expiryMillis(buffer, 5));
        final byte[] same = new byte[record.length];
        buffer.getBytes(5, same);
        assertArrayEquals(record, same, "the buffer and the array encodings are the same bytes");
    }

    @Test
    void shouldRefuseWhatIsNotARecordWithAClearError()
    {
        final ProtocolException shortOne = assertThrows(ProtocolException.class,
            () -> ValueRecord.check(new byte[ValueRecord.HEADER_LENGTH - 1]));
        assertEquals(ErrorCode.TRUNCATED, shortOne.errorCode());
        final byte[] bare = "a bare value written before records".getBytes(StandardCharsets.US_ASCII);
        final ProtocolException foreign = assertThrows(ProtocolException.class, () -> ValueRecord.check(bare));
        assertEquals(ErrorCode.MALFORMED, foreign.errorCode());
        assertTrue(foreign.getMessage().contains("format " + ('a' & 0xFF)), foreign.getMessage());
        assertThrows(ProtocolException.class, () -> ValueRecord.check(new UnsafeBuffer(bare), 0, bare.length));
    }

    @Test
    void shouldExpireAtTheInstantAndNeverWithoutExpiry()
    {
        assertFalse(ValueRecord.expired(0, Long.MAX_VALUE));
        assertFalse(ValueRecord.expired(1000, 999));
        assertTrue(ValueRecord.expired(1000, 1000));
    }
}

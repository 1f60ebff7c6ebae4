package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.layout.ValueRecord;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** BATCH_WRITE requests and REPLICATE BATCH: round trips through the decoder, typed errors for what is malformed. */
class BatchWriteMessagesTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
    private final MessageDecoder decoder = new MessageDecoder();

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldRoundTripABatchWithAWriteId()
    {
        final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(List.of(b("{t}a"), b("{t}bb"), b("{t}c")),
            Arrays.asList(b("one"), b("two!"), null));
        assertEquals(3 * 8 + 4 + 5 + 4 + 3 + 4, entries.length);
        final int length = new BatchWriteRequestFlyweight().wrap(buffer, 8, 512)
            .header(MessageType.BATCH_WRITE_REQUEST, 77)
            .write(3, new UnsafeBuffer(entries), 0, entries.length)
            .appendWriteId(0xabcL, 5, 4)
            .encodedLength();
        assertEquals(16 + 8 + entries.length + 24, length);
        assertEquals(MessageType.BATCH_WRITE_REQUEST, decoder.decode(buffer, 8, length));
        final BatchWriteRequestFlyweight r = decoder.batchWriteRequest();
        assertEquals(77, r.correlationId());
        assertEquals(3, r.entryCount());
        assertEquals(0xabcL, r.writerId());
        assertEquals(5, r.writeSequence());
        int at = r.entriesIndex();
        final String[] keys = {"{t}a", "{t}bb", "{t}c"};
        final String[] values = {"one", "two!", null};
        for (int i = 0; i < 3; i++)
        {
            final byte[] key = new byte[BatchWriteRequestFlyweight.entryKeyLength(buffer, at)];
            buffer.getBytes(BatchWriteRequestFlyweight.entryKeyIndex(at), key);
            assertArrayEquals(b(keys[i]), key);
            if (values[i] == null)
            {
                assertEquals(BatchWriteRequestFlyweight.OP_DELETE, BatchWriteRequestFlyweight.entryOp(buffer, at));
                assertEquals(0, BatchWriteRequestFlyweight.entryValueLength(buffer, at));
            }
            else
            {
                assertEquals(BatchWriteRequestFlyweight.OP_PUT, BatchWriteRequestFlyweight.entryOp(buffer, at));
                final byte[] value = new byte[BatchWriteRequestFlyweight.entryValueLength(buffer, at)];
                buffer.getBytes(BatchWriteRequestFlyweight.entryValueIndex(buffer, at), value);
                assertArrayEquals(b(values[i]), value);
            }
            at = BatchWriteRequestFlyweight.nextEntry(buffer, at);
        }
        assertEquals(r.entriesIndex() + r.entriesLength(), at);
        assertEquals(11, MessageType.BATCH_WRITE_REQUEST.code(), "stable wire code");
        assertEquals(17, Status.CROSSSLOT.code(), "stable status code");
        assertEquals(6, ReplicateRequestFlyweight.OP_BATCH, "stable replicate op");
    }

    @Test
    void shouldRefuseMalformedBatches()
    {
        final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(List.of(b("k1"), b("k2")),
            Arrays.asList(b("v"), null));
        final BatchWriteRequestFlyweight w = new BatchWriteRequestFlyweight().wrap(buffer, 0, 512);
        final int length = w.header(MessageType.BATCH_WRITE_REQUEST, 1)
            .write(2, new UnsafeBuffer(entries), 0, entries.length).encodedLength();
        decoder.decode(buffer, 0, length);

        buffer.putInt(BatchWriteRequestFlyweight.COUNT_OFFSET, 3, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "a count beyond the entries");
        buffer.putInt(BatchWriteRequestFlyweight.COUNT_OFFSET, 1, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "bytes after the last entry");
        buffer.putInt(BatchWriteRequestFlyweight.COUNT_OFFSET, 0, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "an empty batch");
        buffer.putInt(BatchWriteRequestFlyweight.COUNT_OFFSET, 2, ByteOrder.LITTLE_ENDIAN);

        final int first = BatchWriteRequestFlyweight.ENTRIES_OFFSET;
        buffer.putByte(first, (byte)3);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "op 3");
        buffer.putByte(first, (byte)BatchWriteRequestFlyweight.OP_DELETE);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "a DELETE with a value");
        buffer.putByte(first, (byte)BatchWriteRequestFlyweight.OP_PUT);
        buffer.putShort(first + 2, (short)0, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.KEY_TOO_LARGE, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "an empty key");
        buffer.putShort(first + 2, (short)2, ByteOrder.LITTLE_ENDIAN);
        buffer.putInt(first + 4, 1000, ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "a value past the entries");
        buffer.putInt(first + 4, 1, ByteOrder.LITTLE_ENDIAN);
        decoder.decode(buffer, 0, length);
        assertEquals(ErrorCode.TRUNCATED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length - 1)).errorCode(), "truncated");
    }

    @Test
    void shouldRoundTripAReplicatedBatchWithItsRecordsWriteIdAndSequence()
    {
        final byte[] record = new byte[ValueRecord.HEADER_LENGTH + 2];
        ValueRecord.writeHeader(new UnsafeBuffer(record), 0, 0x1234_01L, 0);
        record[ValueRecord.HEADER_LENGTH] = 'v';
        record[ValueRecord.HEADER_LENGTH + 1] = '1';
        final byte[] entries = BatchWriteRequestFlyweight.encodeEntries(List.of(b("{t}a"), b("{t}b")),
            Arrays.asList(record, null));
        final ReplicateRequestFlyweight r = new ReplicateRequestFlyweight().wrap(buffer, 0, 512);
        r.header(MessageType.REPLICATE_REQUEST, 3)
            .writeBatch(1, 0, 16383, 9, 2, new UnsafeBuffer(entries), 0, entries.length)
            .appendWriteId(0xfeedL, 2, 1);
        final int length = r.appendSequence(0x5eedL, 42).encodedLength();
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, length));
        final ReplicateRequestFlyweight d = decoder.replicateRequest();
        assertEquals(ReplicateRequestFlyweight.OP_BATCH, d.op());
        assertEquals(0, d.keyLength());
        assertEquals(2, d.batchCount());
        assertEquals(entries.length, d.batchEntriesLength());
        final byte[] copy = new byte[entries.length];
        buffer.getBytes(d.batchEntriesIndex(), copy);
        assertArrayEquals(entries, copy);
        assertEquals(0xfeedL, d.writerId());
        assertEquals(42, d.replicationSequence());
        assertEquals(0x5eedL, d.senderIncarnation());

        // A PUT entry shorter than a record header is no replicated batch.
        final byte[] bare = BatchWriteRequestFlyweight.encodeEntries(List.of(b("{t}a")), List.of(b("v")));
        final int shortLength = r.header(MessageType.REPLICATE_REQUEST, 4)
            .writeBatch(1, 0, 16383, 9, 1, new UnsafeBuffer(bare), 0, bare.length).encodedLength();
        assertTrue(assertThrows(ProtocolException.class, () -> decoder.decode(buffer, 0, shortLength)).getMessage()
            .contains("value length"));
    }
}

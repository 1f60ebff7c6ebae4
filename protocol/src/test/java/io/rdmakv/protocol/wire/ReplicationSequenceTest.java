package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replication sequence a REPLICATE of a client write may end with ({@link ReplicateRequestFlyweight#FLAG_SEQUENCE})
 * and the RECONCILE query ({@link ReplicateRequestFlyweight#OP_RECONCILE}): round trips, and hostile values refused.
 */
class ReplicationSequenceTest
{
    private static final byte[] KEY = "user:42".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] VALUE = "v-17".getBytes(StandardCharsets.US_ASCII);

    private final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(1024));
    private final MessageDecoder decoder = new MessageDecoder();

    private ReplicateRequestFlyweight put()
    {
        final ReplicateRequestFlyweight r = new ReplicateRequestFlyweight().wrap(buffer, 0, 1024);
        r.header(MessageType.REPLICATE_REQUEST, 4);
        return r.write(2, 0, 99, 6, ReplicateRequestFlyweight.OP_PUT, new UnsafeBuffer(KEY), 0, KEY.length,
            new UnsafeBuffer(VALUE), 0, VALUE.length);
    }

    @Test
    void shouldCarryTheSequenceAfterTheWriteId()
    {
        final ReplicateRequestFlyweight r = put();
        final int plain = r.encodedLength();
        r.appendWriteId(77, 40, 38);
        r.appendSequence(0x1234_5678_9ABC_DEF0L, 901);
        assertEquals(plain + MessageHeaderFlyweight.WRITE_ID_LENGTH + ReplicateRequestFlyweight.SEQUENCE_LENGTH,
            r.encodedLength());

        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, r.encodedLength()));
        final ReplicateRequestFlyweight decoded = decoder.replicateRequest();
        assertTrue(decoded.hasSequence());
        assertEquals(0x1234_5678_9ABC_DEF0L, decoded.senderIncarnation());
        assertEquals(901, decoded.replicationSequence());
        assertEquals(77, decoded.writerId(), "the write id is read before the sequence");
        assertEquals(40, decoded.writeSequence());
        assertEquals(38, decoded.writesCompletedBelow());
        assertEquals(VALUE.length, decoded.valueLength());
    }

    @Test
    void shouldCarryTheSequenceWithoutAWriteIdAndLeaveOldMessagesValid()
    {
        final ReplicateRequestFlyweight r = put();
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, r.encodedLength()));
        assertFalse(decoder.replicateRequest().hasSequence(), "a message without the flag is valid as before");

        put().appendSequence(5, 1);
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, r.encodedLength()));
        assertEquals(1, decoder.replicateRequest().replicationSequence());
        assertFalse(decoder.replicateRequest().hasWriteId());
    }

    @Test
    void shouldRefuseAWriteIdAppendedAfterTheSequence()
    {
        final ReplicateRequestFlyweight r = put().appendSequence(5, 1);
        assertThrows(IllegalStateException.class, () -> r.appendWriteId(77, 40, 38));
        assertThrows(IllegalStateException.class, () -> r.appendSequence(5, 2));
    }

    @Test
    void shouldMarkAFixUpThatCarriesASequenceAndRefuseOneWithout()
    {
        final ReplicateRequestFlyweight r = put();
        assertThrows(IllegalStateException.class, r::markFixUp, "a fix-up carries a sequence");
        r.appendWriteId(77, 40, 0);
        r.appendSequence(5, 9).markFixUp();
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, r.encodedLength()));
        final ReplicateRequestFlyweight decoded = decoder.replicateRequest();
        assertTrue(decoded.isFixUp());
        assertEquals(9, decoded.replicationSequence());
        assertEquals(77, decoded.writerId(), "a fix-up may carry the write id of a write its value includes");

        final ReplicateRequestFlyweight plain = put().appendSequence(5, 1);
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, plain.encodedLength()));
        assertFalse(decoder.replicateRequest().isFixUp());

        // The flag written past the encoder's check, on a message without a sequence.
        final ReplicateRequestFlyweight hostile = put();
        hostile.flags(ReplicateRequestFlyweight.FLAG_FIX_UP);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, hostile.encodedLength())).errorCode());
    }

    @Test
    void shouldCarryTheAnswerRecordedForAFixUpsWriteIdAndRefuseItElsewhere()
    {
        final ReplicateRequestFlyweight r = put();
        r.appendWriteId(77, 41, 0);
        assertThrows(IllegalStateException.class, () -> r.recordedAnswer(Status.OK), "no fix-up yet");
        r.appendSequence(5, 10).markFixUp().recordedAnswer(Status.NOT_FOUND);
        assertThrows(IllegalStateException.class, () -> r.recordedAnswer(Status.BUSY), "only OK or NOT_FOUND");
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, r.encodedLength()));
        assertEquals(Status.NOT_FOUND, decoder.replicateRequest().recordedAnswer());
        r.recordedAnswer(Status.OK);
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, r.encodedLength()));
        assertEquals(Status.OK, decoder.replicateRequest().recordedAnswer(), "OK is code 0: carried as 1");

        final ReplicateRequestFlyweight plain = put().appendSequence(5, 11);
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, plain.encodedLength()));
        assertEquals(null, decoder.replicateRequest().recordedAnswer(), "none: the replica's own outcome");

        // Written past the encoder's checks: on a write that is no fix-up, and an answer that is no write's.
        buffer.putByte(ReplicateRequestFlyweight.ANSWER_OFFSET, (byte)1);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, plain.encodedLength())).errorCode());
        final ReplicateRequestFlyweight fixUp = put();
        fixUp.appendWriteId(77, 42, 0);
        fixUp.appendSequence(5, 12).markFixUp();
        buffer.putByte(ReplicateRequestFlyweight.ANSWER_OFFSET, (byte)(Status.BUSY.code() + 1));
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, fixUp.encodedLength())).errorCode());
    }

    @Test
    void shouldRefuseHostileSequences()
    {
        assertThrows(ProtocolException.class, () -> put().appendSequence(0, 1), "incarnation 0");
        assertThrows(ProtocolException.class, () -> put().appendSequence(5, 0), "sequence 0");

        // Hostile values written past the encoder's checks.
        for (final long[] bad : new long[][] {{0, 1}, {5, 0}, {5, -1}})
        {
            final ReplicateRequestFlyweight r = put().appendSequence(5, 1);
            final int end = r.encodedLength();
            buffer.putLong(end - 16, bad[0], java.nio.ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(end - 8, bad[1], java.nio.ByteOrder.LITTLE_ENDIAN);
            final ProtocolException ex = assertThrows(ProtocolException.class, () -> decoder.decode(buffer, 0, end));
            assertEquals(ErrorCode.MALFORMED, ex.errorCode());
        }

        // The flag without the bytes: the lengths disagree.
        final ReplicateRequestFlyweight r = put();
        r.flags(ReplicateRequestFlyweight.FLAG_SEQUENCE);
        final ProtocolException ex = assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, r.encodedLength()));
        assertEquals(ErrorCode.BAD_LENGTH, ex.errorCode());

        // A sequence on a checkpoint copy.
        final ReplicateRequestFlyweight copy = new ReplicateRequestFlyweight().wrap(buffer, 0, 1024);
        copy.header(MessageType.REPLICATE_REQUEST, 4).write(2, 0, 99, 6, ReplicateRequestFlyweight.OP_COPY,
            new UnsafeBuffer(KEY), 0, KEY.length, new UnsafeBuffer(VALUE), 0, VALUE.length).appendSequence(5, 1);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, copy.encodedLength())).errorCode());
    }

    @Test
    void shouldRoundTripAReconcileQuery()
    {
        final ReplicateRequestFlyweight r = new ReplicateRequestFlyweight().wrap(buffer, 0, 1024);
        r.header(MessageType.REPLICATE_REQUEST, 9).writeReconcile(2, 100, 200, 8, 1, -77L, 4_000_000_000L);
        assertEquals(MessageType.REPLICATE_REQUEST, decoder.decode(buffer, 0, r.encodedLength()));
        final ReplicateRequestFlyweight d = decoder.replicateRequest();
        assertEquals(ReplicateRequestFlyweight.OP_RECONCILE, d.op());
        assertEquals(2, d.primary());
        assertEquals(100, d.firstSlot());
        assertEquals(200, d.lastSlot());
        assertEquals(8, d.rangeEpoch());
        assertEquals(1, d.reconciledPrimary());
        assertEquals(-77L, d.reconciledIncarnation(), "an incarnation is any 64-bit value");
        assertEquals(4_000_000_000L, d.reconciledSequence());
    }

    @Test
    void shouldRefuseHostileReconcileQueries()
    {
        assertThrows(ProtocolException.class, () -> new ReplicateRequestFlyweight().wrap(buffer, 0, 1024)
            .header(MessageType.REPLICATE_REQUEST, 9).writeReconcile(2, 0, 9, 8, -1, 5, 0));
        assertThrows(ProtocolException.class, () -> new ReplicateRequestFlyweight().wrap(buffer, 0, 1024)
            .header(MessageType.REPLICATE_REQUEST, 9).writeReconcile(2, 0, 9, 8, 1, 5, -1));

        final ReplicateRequestFlyweight r = new ReplicateRequestFlyweight().wrap(buffer, 0, 1024);
        r.header(MessageType.REPLICATE_REQUEST, 9).writeReconcile(2, 0, 9, 8, 1, 5, 3);
        final int length = r.encodedLength();
        final int value = ReplicateRequestFlyweight.KEY_OFFSET;

        buffer.putLong(value + 12, -5, java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "negative sequence");
        buffer.putLong(value + 12, 3, java.nio.ByteOrder.LITTLE_ENDIAN);

        buffer.putInt(value, -2, java.nio.ByteOrder.LITTLE_ENDIAN);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, length)).errorCode(), "negative node id");
        buffer.putInt(value, 1, java.nio.ByteOrder.LITTLE_ENDIAN);

        r.appendWriteId(77, 40, 38);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, r.encodedLength())).errorCode(), "a write id on a query");

        // A value of another length than the query's.
        final ReplicateRequestFlyweight shortQuery = new ReplicateRequestFlyweight().wrap(buffer, 0, 1024);
        shortQuery.header(MessageType.REPLICATE_REQUEST, 9).write(2, 0, 9, 8, ReplicateRequestFlyweight.OP_RECONCILE,
            new UnsafeBuffer(new byte[0]), 0, 0, new UnsafeBuffer(new byte[8]), 0, 8);
        assertEquals(ErrorCode.BAD_LENGTH, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, shortQuery.encodedLength())).errorCode());

        // A key on a query.
        final ReplicateRequestFlyweight keyed = new ReplicateRequestFlyweight().wrap(buffer, 0, 1024);
        keyed.header(MessageType.REPLICATE_REQUEST, 9).write(2, 0, 9, 8, ReplicateRequestFlyweight.OP_RECONCILE,
            new UnsafeBuffer(KEY), 0, KEY.length, new UnsafeBuffer(new byte[20]), 0, 20);
        assertEquals(ErrorCode.KEY_TOO_LARGE, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, keyed.encodedLength())).errorCode());

        // Op 7 does not exist (6 is BATCH).
        final ReplicateRequestFlyweight unknown = put();
        buffer.putByte(ReplicateRequestFlyweight.OP_OFFSET, (byte)7);
        assertEquals(ErrorCode.MALFORMED, assertThrows(ProtocolException.class,
            () -> decoder.decode(buffer, 0, unknown.encodedLength())).errorCode());
    }
}

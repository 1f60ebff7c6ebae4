package io.rdmakv.server.replication;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A backup's answer to a RECONCILE query: what it says for each case, the round trip, hostile answers refused. */
class ReconcileAnswerTest
{
    private final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4096]);

    private static SenderWindow window(final long incarnation, final int entries, final String... keys)
    {
        final SenderWindow w = new SenderWindow(entries, 1024);
        for (int i = 0; i < keys.length; i++)
        {
            final byte[] k = keys[i].getBytes(StandardCharsets.UTF_8);
            w.record(incarnation, i + 1, 5, 0, 0, new UnsafeBuffer(k), 0, k.length);
        }
        return w;
    }

    private ReconcileAnswer roundTrip(final SenderWindow w, final long incarnation, final long after,
        final int capacity)
    {
        final int length = ReconcileAnswer.encode(w, incarnation, after, 0, 10, buffer, 8, capacity);
        return ReconcileAnswer.decode(buffer, 8, length);
    }

    private static List<ByteBuffer> keys(final String... keys)
    {
        return java.util.Arrays.stream(keys).map(k -> ByteBuffer.wrap(k.getBytes(StandardCharsets.UTF_8))).toList();
    }

    @Test
    void shouldAnswerTheKeysPastTheAskersLastSequence()
    {
        final ReconcileAnswer a = roundTrip(window(9, 16, "a", "b", "c"), 9, 1, 4000);
        assertTrue(a.covered);
        assertEquals(3, a.lastSequence);
        assertEquals(keys("b", "c"), a.keys);
    }

    @Test
    void shouldAnswerEveryKeyWhenTheAskerKnowsNoIncarnation()
    {
        final ReconcileAnswer a = roundTrip(window(9, 16, "a", "b"), 0, 0, 4000);
        assertTrue(a.covered);
        assertEquals(keys("a", "b"), a.keys);
    }

    @Test
    void shouldAnswerNothingHeldWhenItHasNoWindowOfThatSender()
    {
        final ReconcileAnswer a = roundTrip(null, 9, 40, 4000);
        assertTrue(a.covered);
        assertEquals(0, a.lastSequence);
        assertEquals(List.of(), a.keys);
    }

    @Test
    void shouldAnswerNotCoveredForAnotherIncarnationAShortWindowOrAnAnswerTooLong()
    {
        assertFalse(roundTrip(window(9, 16, "a"), 8, 0, 4000).covered, "another run of the sender");
        assertFalse(roundTrip(window(9, 2, "a", "b", "c", "d"), 9, 1, 4000).covered, "sequences 1-2 evicted");
        assertTrue(roundTrip(window(9, 2, "a", "b", "c", "d"), 9, 2, 4000).covered);
        final ReconcileAnswer tooLong =
            roundTrip(window(9, 16, "aaaa", "bbbb"), 9, 0, ReconcileAnswer.FIXED_LENGTH + 7);
        assertFalse(tooLong.covered, "the keys do not fit the response");
        assertEquals(List.of(), tooLong.keys);
    }

    @Test
    void shouldRefuseHostileAnswers()
    {
        final int length = ReconcileAnswer.encode(window(9, 16, "a", "b"), 9, 0, 0, 10, buffer, 0, 4000);
        assertThrows(IllegalArgumentException.class, () -> ReconcileAnswer.decode(buffer, 0, 15), "too short");
        assertThrows(IllegalArgumentException.class, () -> ReconcileAnswer.decode(buffer, 0, length - 1),
            "a key past the end");
        assertThrows(IllegalArgumentException.class, () -> ReconcileAnswer.decode(buffer, 0, length + 1),
            "bytes after the keys");
        buffer.putInt(12, Integer.MAX_VALUE, ByteOrder.LITTLE_ENDIAN);
        assertThrows(IllegalArgumentException.class, () -> ReconcileAnswer.decode(buffer, 0, length), "count");
        buffer.putInt(12, 2, ByteOrder.LITTLE_ENDIAN);
        buffer.putShort(16, (short)0, ByteOrder.LITTLE_ENDIAN);
        assertThrows(IllegalArgumentException.class, () -> ReconcileAnswer.decode(buffer, 0, length), "empty key");
        buffer.putShort(16, (short)1, ByteOrder.LITTLE_ENDIAN);
        buffer.putByte(8, (byte)2);
        assertThrows(IllegalArgumentException.class, () -> ReconcileAnswer.decode(buffer, 0, length), "covered 2");
        buffer.putByte(8, (byte)0);
        assertThrows(IllegalArgumentException.class, () -> ReconcileAnswer.decode(buffer, 0, length),
            "keys while not covered");
        buffer.putByte(8, (byte)1);
        buffer.putLong(0, -1, ByteOrder.LITTLE_ENDIAN);
        assertThrows(IllegalArgumentException.class, () -> ReconcileAnswer.decode(buffer, 0, length), "sequence");
        buffer.putLong(0, 2, ByteOrder.LITTLE_ENDIAN);
        assertEquals(2, ReconcileAnswer.decode(buffer, 0, length).keys.size(), "restored: valid again");
    }
}

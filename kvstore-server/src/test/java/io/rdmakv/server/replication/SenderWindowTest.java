package io.rdmakv.server.replication;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A replica's window of one sender's writes, and the answer to a RECONCILE query built from it. */
class SenderWindowTest
{
    private static UnsafeBuffer key(final String s)
    {
        return new UnsafeBuffer(s.getBytes(StandardCharsets.UTF_8));
    }

    private static void record(final SenderWindow w, final long incarnation, final long sequence, final int hashSlot,
        final String k)
    {
        w.record(incarnation, sequence, hashSlot, 0, 0, key(k), 0, k.length());
    }

    private static List<String> after(final SenderWindow w, final long after, final int first, final int last)
    {
        final List<String> keys = new ArrayList<>();
        w.forEachAfter(after, first, last, (buffer, index, length, writer, writeSequence) ->
        {
            final byte[] bytes = new byte[length];
            buffer.getBytes(index, bytes);
            keys.add(new String(bytes, StandardCharsets.UTF_8));
        });
        return keys;
    }

    @Test
    void shouldListTheKeysPastASequenceInARange()
    {
        final SenderWindow w = new SenderWindow(8, 64);
        record(w, 7, 1, 10, "a");
        record(w, 7, 2, 500, "other-range");
        record(w, 7, 3, 11, "b");
        record(w, 7, 5, 12, "c");
        assertEquals(7, w.incarnation());
        assertEquals(5, w.lastSequence());
        assertEquals(List.of("b", "c"), after(w, 1, 0, 100));
        assertEquals(List.of("a", "b", "c"), after(w, 0, 0, 100));
        assertTrue(w.covers(0), "nothing evicted");
    }

    @Test
    void shouldEvictTheOldestByEntriesAndStopCoveringThem()
    {
        final SenderWindow w = new SenderWindow(3, 64);
        for (int s = 1; s <= 5; s++)
        {
            record(w, 7, s, 1, "k" + s);
        }
        assertEquals(3, w.size());
        assertEquals(List.of("k3", "k4", "k5"), after(w, 0, 0, 10));
        assertFalse(w.covers(1), "sequence 2 was evicted");
        assertTrue(w.covers(2));
    }

    @Test
    void shouldEvictTheOldestByKeyBytesAcrossTheWrap()
    {
        final SenderWindow w = new SenderWindow(100, 10);
        record(w, 7, 1, 1, "aaaa");   // bytes 0..3
        record(w, 7, 2, 1, "bbbb");   // 4..7
        record(w, 7, 3, 1, "cccc");   // does not fit before the end: starts at 0, evicting sequence 1
        assertEquals(List.of("bbbb", "cccc"), after(w, 0, 0, 10));
        assertFalse(w.covers(0));
        assertTrue(w.covers(1));
        record(w, 7, 4, 1, "dd");     // 4..5 after "cccc": evicts sequence 2
        assertEquals(List.of("cccc", "dd"), after(w, 0, 0, 10));
        record(w, 7, 5, 1, "eeee");   // 6..9
        assertEquals(List.of("cccc", "dd", "eeee"), after(w, 0, 0, 10), "the keys' bytes are intact");
        record(w, 7, 6, 1, "ffffffffff"); // all ten bytes: everything else goes
        assertEquals(List.of("ffffffffff"), after(w, 0, 0, 10));
        assertTrue(w.covers(5));
        record(w, 7, 7, 1, "this key is longer than the window");
        assertEquals(List.of(), after(w, 0, 0, 10));
        assertFalse(w.covers(6), "a key the window cannot hold ends its cover");
        assertEquals(7, w.lastSequence());
    }

    @Test
    void shouldStartAfreshForAnotherIncarnation()
    {
        final SenderWindow w = new SenderWindow(2, 64);
        for (int s = 1; s <= 4; s++)
        {
            record(w, 7, s, 1, "k" + s);
        }
        record(w, 8, 1, 1, "new");
        assertEquals(8, w.incarnation());
        assertEquals(1, w.lastSequence());
        assertTrue(w.covers(0));
        assertEquals(List.of("new"), after(w, 0, 0, 10));
    }

    @Test
    void shouldHandOverTheWriteIdsOfAKeyPastASequenceOnceEach()
    {
        final SenderWindow w = new SenderWindow(16, 1024);
        w.record(7, 1, 5, 0xA, 1, key("k1"), 0, 2);
        w.record(7, 2, 5, 0xA, 2, key("k1"), 0, 2);
        w.record(7, 3, 5, 0xB, 9, key("k2"), 0, 2);
        w.record(7, 4, 5, 0, 0, key("k1"), 0, 2);
        w.record(7, 5, 6, 0xC, 4, key("k1"), 0, 2);
        w.record(7, 6, 5, 0xA, 3, key("k1"), 0, 2);

        final List<String> taken = new ArrayList<>();
        w.takeWriteIds(1, 5, 5, key("k1"), 0, 2, (writer, sequence) -> taken.add(writer + "/" + sequence));
        assertEquals(List.of("10/2", "10/3"), taken,
            "k1 past sequence 1 in slot 5: not sequence 1, not k2, not the write without an id, not slot 6");

        taken.clear();
        w.takeWriteIds(0, 0, 9, key("k1"), 0, 2, (writer, sequence) -> taken.add(writer + "/" + sequence));
        assertEquals(List.of("10/1", "12/4"), taken, "each write id is handed over once");
        assertEquals(List.of("k1", "k1", "k2", "k1", "k1", "k1"), after(w, 0, 0, 9), "the entries themselves stay");
    }
}

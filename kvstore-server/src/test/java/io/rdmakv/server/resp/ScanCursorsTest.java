package io.rdmakv.server.resp;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** SCAN's cursors: the hash slot in the cursor, the key in a bounded table, an unknown entry from its slot's start. */
class ScanCursorsTest
{
    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void shouldResumeAfterTheKeyOfTheSlotACursorNames()
    {
        final ScanCursors cursors = new ScanCursors(4);
        final ScanCursors.Position start = cursors.resume(0);
        assertEquals(0, start.hashSlot());
        assertEquals(0, start.afterKey().length);

        final long c = cursors.cursor(16383, b("last-key"));
        assertTrue(c > 0, "positive as a signed long too: " + c);
        assertEquals(16384L, c >>> 48);
        final ScanCursors.Position p = cursors.resume(c);
        assertEquals(16383, p.hashSlot());
        assertArrayEquals(b("last-key"), p.afterKey());
        assertArrayEquals(b("last-key"), cursors.resume(c).afterKey(), "a cursor used twice (a retried call) works");

        // A slot's start needs no entry; slot 0's start is not cursor 0 (which ends a scan).
        assertEquals(1L << 48, cursors.cursor(0, new byte[0]));
        assertEquals(0, cursors.resume(1L << 48).hashSlot());
        assertEquals(0, cursors.cursor(16384, b("x")), "past the last hash slot: the end");
        assertEquals(1, cursors.size());
    }

    @Test
    void shouldRestartTheSlotOfAnEvictedOrForeignCursorAndRefuseMalformedOnes()
    {
        final ScanCursors cursors = new ScanCursors(2);
        final long first = cursors.cursor(7, b("a"));
        final long second = cursors.cursor(7, b("b"));
        assertNotEquals(first, second);
        cursors.cursor(9, b("c")); // the third entry evicts the one used longest ago
        assertEquals(2, cursors.size());
        final ScanCursors.Position evicted = cursors.resume(first);
        assertEquals(7, evicted.hashSlot());
        assertEquals(0, evicted.afterKey().length, "evicted: the slot again from its start (duplicates, no misses)");
        assertArrayEquals(b("b"), cursors.resume(second).afterKey());
        assertEquals(1, cursors.unknown());

        // The entry of another slot is not taken for this one.
        final long foreign = (second & ((1L << 48) - 1)) | (9L << 48);
        assertEquals(0, cursors.resume(foreign).afterKey().length);

        assertNull(cursors.resume(5), "no slot part");
        assertNull(cursors.resume(16385L << 48), "beyond the last hash slot");
        assertNull(cursors.resume(-1L), "an unsigned cursor beyond every hash slot");
    }
}

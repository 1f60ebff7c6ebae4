package io.rdmakv.client;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The scan cursor's text (Redis's "0" at both ends) and the successor a prefix read stops before. */
class ScanCursorTest
{
    @Test
    void shouldRoundTripItsText()
    {
        final ScanCursor cursor = ScanCursor.of(1234, "k\u00e9y".getBytes(StandardCharsets.UTF_8));
        assertEquals(cursor, ScanCursor.parse(cursor.toString()));
        assertEquals("1234-6bc3a979", cursor.toString());
        assertEquals(ScanCursor.of(7, new byte[0]), ScanCursor.parse("7-"));
        assertEquals(ScanCursor.of(0, new byte[] {1}), ScanCursor.parse(ScanCursor.of(0, new byte[] {1}).toString()));
    }

    @Test
    void shouldReadZeroAsTheStartAndWriteZeroAtBothEnds()
    {
        assertEquals(ScanCursor.START, ScanCursor.parse("0"));
        assertEquals("0", ScanCursor.START.toString());
        assertEquals("0", ScanCursor.FINISHED.toString());
        assertTrue(ScanCursor.FINISHED.isFinished());
        assertFalse(ScanCursor.START.isFinished());
        assertEquals(ScanCursor.FINISHED, ScanCursor.of(16384, new byte[] {1}));
    }

    @Test
    void shouldRefuseWhatIsNotACursor()
    {
        for (final String bad : new String[] {"", "x", "-00", "16384-", "12-zz", "12-abc", "-1-00"})
        {
            assertThrows(IllegalArgumentException.class, () -> ScanCursor.parse(bad), bad);
        }
        assertThrows(IllegalArgumentException.class, () -> ScanCursor.of(-1, new byte[0]));
    }

    @Test
    void shouldStopAPrefixReadBeforeTheFirstKeyPastThePrefix()
    {
        assertArrayEquals("{u}:;".getBytes(StandardCharsets.US_ASCII),
            KeyScanning.successor("{u}::".getBytes(StandardCharsets.US_ASCII)));
        assertArrayEquals(new byte[] {'{', 'u', '}', 2},
            KeyScanning.successor(new byte[] {'{', 'u', '}', 1, (byte)0xFF, (byte)0xFF}));
    }
}

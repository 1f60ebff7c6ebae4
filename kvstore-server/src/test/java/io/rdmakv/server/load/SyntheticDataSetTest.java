package io.rdmakv.server.load;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SyntheticDataSetTest
{
    @Test
    void shouldUseTheBenchKeyFormat()
    {
        final SyntheticDataSet set = new SyntheticDataSet(1_000_000, 16, 8);
        assertEquals("k000000000000042", new String(set.key(42), StandardCharsets.US_ASCII));
        assertEquals("k000000000999999", new String(set.key(999_999), StandardCharsets.US_ASCII));
        assertEquals(42, set.indexOf(set.key(42)));
        assertEquals(-1, set.indexOf("x000000000000042".getBytes(StandardCharsets.US_ASCII)));
        assertEquals(-1, set.indexOf("k00000000000004".getBytes(StandardCharsets.US_ASCII)), "wrong length");
        assertEquals(-1, set.indexOf("k000000001000000".getBytes(StandardCharsets.US_ASCII)), "beyond the set");
        assertEquals(-1, set.indexOf("k0000000000000-1".getBytes(StandardCharsets.US_ASCII)));
    }

    @Test
    void shouldDeriveEachValueFromItsIndexOnly()
    {
        final SyntheticDataSet set = new SyntheticDataSet(100, 4, 1027);
        final byte[] v7 = set.value(7);
        assertEquals(1027, v7.length);
        assertArrayEquals(v7, new SyntheticDataSet(100, 4, 1027).value(7, new byte[1027]), "reproducible");
        assertFalse(Arrays.equals(v7, set.value(8)), "values differ between keys");
        assertTrue(set.matches(7, v7));
        assertFalse(set.matches(8, v7), "key 7's value is not key 8's");
        final byte[] torn = v7.clone();
        torn[1026] ^= 1;
        assertFalse(set.matches(7, torn), "one flipped bit at the end is noticed");
        assertFalse(set.matches(7, Arrays.copyOf(v7, 1026)));
        assertFalse(set.matches(7, null));
        assertEquals(100L * (4 + 1027), set.totalBytes());
    }

    @Test
    void shouldRejectSizesThatCannotHoldTheKeysWithAClearMessage()
    {
        final IllegalArgumentException tooShort = assertThrows(IllegalArgumentException.class,
            () -> new SyntheticDataSet(1000, 3, 10));
        assertTrue(tooShort.getMessage().contains("key size must be in [4, 1024]"), tooShort.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new SyntheticDataSet(0, 16, 10));
        assertThrows(IllegalArgumentException.class, () -> new SyntheticDataSet(10, 16, -1));
        assertThrows(IllegalArgumentException.class, () -> new SyntheticDataSet(10, 16, (1 << 20) + 1));
        assertThrows(IndexOutOfBoundsException.class, () -> new SyntheticDataSet(10, 16, 1).key(10));
    }
}

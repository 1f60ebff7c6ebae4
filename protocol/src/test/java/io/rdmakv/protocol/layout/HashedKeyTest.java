package io.rdmakv.protocol.layout;

import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HashedKeyTest
{
    /** Counts what it is asked to compute. */
    private static final class Counting implements KeyHasher
    {
        int calls;

        @Override
        public long hash(final DirectBuffer key, final int offset, final int length)
        {
            calls++;
            return KeyHash.hash(key, offset, length);
        }

        @Override
        public int hashSlot(final DirectBuffer key, final int offset, final int length)
        {
            calls++;
            return KeyHash.hashSlot(key, offset, length);
        }
    }

    @Test
    void shouldCarryTheHashesClientsAndNodesAgreeOn()
    {
        final byte[] bytes = "user:{42}:name".getBytes(StandardCharsets.US_ASCII);
        final UnsafeBuffer padded = new UnsafeBuffer(new byte[bytes.length + 3]);
        padded.putBytes(3, bytes);

        final HashedKey key = new HashedKey().wrap(padded, 3, bytes.length);
        assertEquals(KeyHash.hash(bytes), key.hash());
        assertEquals(KeyHash.hashSlot(bytes), key.hashSlot());
        assertEquals(KeyHash.hashSlot("{42}".getBytes(StandardCharsets.US_ASCII)), key.hashSlot(), "the hash tag");
        assertSame(padded, key.buffer());
        assertEquals(3, key.offset());
        assertEquals(bytes.length, key.length());
        assertArrayEquals(bytes, key.copyBytes());

        final HashedKey ofArray = HashedKey.of(bytes);
        assertEquals(key.hash(), ofArray.hash());
        assertEquals(key.hashSlot(), ofArray.hashSlot());
    }

    @Test
    void shouldHashOncePerWrapAndNeverForACopyThatCarriesItsHashes()
    {
        final Counting hasher = new Counting();
        final UnsafeBuffer first = new UnsafeBuffer("alpha".getBytes(StandardCharsets.US_ASCII));
        final HashedKey key = new HashedKey(hasher).wrap(first, 0, 5);
        assertEquals(2, hasher.calls, "one index hash and one hash slot");
        key.hash();
        key.hashSlot();
        assertEquals(2, hasher.calls, "read, not computed again");

        final UnsafeBuffer copy = new UnsafeBuffer(new byte[8]);
        copy.putBytes(2, first, 0, 5);
        final HashedKey moved = new HashedKey(hasher).wrapHashed(copy, 2, 5, key.hash(), key.hashSlot());
        assertEquals(2, hasher.calls, "a copy under the hashes it came with");
        assertEquals(key.hash(), moved.hash());
        assertEquals(key.hashSlot(), moved.hashSlot());
        assertTrue(moved.sameBytes(first, 0, 5));
        assertFalse(moved.sameBytes(first, 0, 4), "another length");
        assertFalse(moved.sameBytes(new UnsafeBuffer("alphb".getBytes(StandardCharsets.US_ASCII)), 0, 5));
    }

    @Test
    void shouldRefuseAViewOutsideItsBuffer()
    {
        final HashedKey key = new HashedKey();
        final UnsafeBuffer buffer = new UnsafeBuffer(new byte[4]);
        assertThrows(IndexOutOfBoundsException.class, () -> key.wrap(buffer, 2, 3));
        assertThrows(IndexOutOfBoundsException.class, () -> key.wrapHashed(buffer, 2, 3, 0, 0));
    }
}

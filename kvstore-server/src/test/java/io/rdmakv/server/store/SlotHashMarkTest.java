package io.rdmakv.server.store;

import io.rdmakv.protocol.layout.KeyHash;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.rocksdb.Options;
import org.rocksdb.RocksDB;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A store records the key-to-slot mapping it was written with, and one written with another mapping (an earlier
 * build's XXH64-derived slot) is refused before anything is written, naming the directory and the way out.
 */
class SlotHashMarkTest
{
    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldRecordTheMappingOfANewStoreAndOpenItAgain() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            store.put(b("{user1000}.following"), b("v"));
        }
        assertEquals(SlotHashMark.MAPPING, SlotHashMark.read(dir));
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            assertArrayEquals(b("v"), store.get(b("{user1000}.following")));
            store.forEach((k, v) ->
            {
                assertEquals(KeyHash.hashSlot(b("user1000")), KeyHash.hashSlot(new UnsafeBuffer(k), 0, k.length), "keys are placed by their hash tag's CRC16 slot");
                return true;
            });
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseAStoreOfSlotPrefixedKeysWrittenWithoutTheMark() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            store.put(b("k"), b("v"));
        }
        // What a data directory of an earlier build looks like: slot-prefixed keys, no mark.
        Files.delete(dir.resolve(SlotHashMark.FILE));
        final StoreException refused = assertThrows(StoreException.class, () -> RocksStore.open(dir,
            Durability.DEFAULT));
        assertTrue(refused.getMessage().contains(dir.toAbsolutePath().toString()), refused.getMessage());
        assertTrue(refused.getMessage().contains("XXH64"), refused.getMessage());
        assertTrue(refused.getMessage().contains("rdmakv backup --cluster"), refused.getMessage());
        assertFalse(Files.exists(dir.resolve(SlotHashMark.FILE)), "a refused store is left as it was");
        assertThrows(StoreException.class, () -> RocksStore.open(dir, Durability.DEFAULT), "refused every time");
    }

    @Test
    @Timeout(60)
    void shouldRefuseAMappingItDoesNotKnow() throws Exception
    {
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            store.put(b("k"), b("v"));
        }
        Files.writeString(dir.resolve(SlotHashMark.FILE), "some-future-mapping\n");
        final StoreException refused = assertThrows(StoreException.class, () -> RocksStore.open(dir,
            Durability.DEFAULT));
        assertTrue(refused.getMessage().contains("'some-future-mapping'"), refused.getMessage());
    }

    @Test
    @Timeout(60)
    void shouldMigrateKeysWithoutPrefixesByTheMappingAndMarkTheStore() throws Exception
    {
        try (Options options = new Options().setCreateIfMissing(true);
            RocksDB legacy = RocksDB.open(options, dir.toString()))
        {
            legacy.put(b("{tag}a"), b("1"));
            legacy.put(b("{tag}b"), b("2"));
        }
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            assertArrayEquals(b("1"), store.get(b("{tag}a")));
            assertArrayEquals(b("2"), store.get(b("{tag}b")));
        }
        assertEquals(SlotHashMark.MAPPING, SlotHashMark.read(dir));
    }
}

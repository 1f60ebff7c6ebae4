package io.rdmakv.server.store;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A damaged write-ahead log never loses data silently: the store refuses middle damage with the file, offset and fix,
 * accepts a torn last record, recovers only on the operator's choice, and RocksDB's own LOG files stay bounded.
 *
 * <p>A crash is a copy of the data directory taken while the store is open and idle: every write is in the WAL
 * only (no flush ran), which is what {@code kill -9} leaves behind.
 */
class WalRecoveryTest
{
    private static final int KEYS = 400;
    private static final int VALUE_BYTES = 100;

    @TempDir
    Path tmp;

    @Test
    @Timeout(60)
    void shouldRefuseAWalDamagedInTheMiddleNamingTheFileTheOffsetAndTheFix() throws Exception
    {
        final Path crashed = crashedStore();
        final Path wal = newestWal(crashed);
        final WalFileReport intact = WalScan.scan(wal);
        assertFalse(intact.damaged());
        assertEquals(KEYS, intact.writes(), "one write per put in the WAL");
        final long flipAt = Files.size(wal) / 2;
        flip(wal, flipAt);

        final StoreException refused = assertThrows(StoreException.class, () -> RocksStore.open(crashed,
            Durability.DEFAULT));
        final String message = refused.getMessage();
        assertTrue(message.contains(wal.toAbsolutePath().toString()), message);
        final long offset = Long.parseLong(message.replaceAll("(?s).* at offset (\\d+) .*", "$1"));
        assertTrue(offset <= flipAt && offset > flipAt - 2 * VALUE_BYTES, "the damaged record starts at " + offset +
            ", the flip was at " + flipAt);
        assertTrue(message.contains("checksum mismatch"), message);
        assertTrue(message.contains("store.walRecovery=point-in-time"), "the fix is named: " + message);
    }

    @Test
    @Timeout(60)
    void shouldStartAfterATornLastRecordWithEveryWriteBeforeIt() throws Exception
    {
        final Path crashed = crashedStore();
        final Path wal = newestWal(crashed);
        truncate(wal, Files.size(wal) - 10);
        assertTrue(WalScan.scan(wal).tornTail());

        try (RocksStore store = RocksStore.open(crashed, Durability.DEFAULT))
        {
            for (int k = 0; k < KEYS - 1; k++)
            {
                assertArrayEquals(value(k), store.get(key(k)), "key " + k);
            }
            assertNull(store.get(key(KEYS - 1)), "the torn record was the last put");
        }
    }

    @Test
    @Timeout(60)
    void shouldReportAtErrorHowManyWritesAWalCutInHalfLostAndStillStartUnderTolerateTail() throws Exception
    {
        final Path crashed = crashedStore(true);
        assertEquals(KEYS, SequenceMark.read(crashed).orElseThrow().sequence(), "recorded after the last put");
        final Path wal = newestWal(crashed);
        truncate(wal, Files.size(wal) / 2); // the measurement: half of the acknowledged writes gone
        assertFalse(WalScan.scan(wal).damaged(), "a cut looks like a torn last record: tolerate-tail accepts it");

        final int present;
        try (RocksStore store = RocksStore.open(crashed, Durability.DEFAULT))
        {
            present = (int)java.util.stream.IntStream.range(0, KEYS).filter(k -> store.get(key(k)) != null).count();
            assertTrue(present > 0 && present < KEYS, "a prefix survives: " + present);
            final String report = store.walLossReport().orElseThrow(() -> new AssertionError("no loss reported"));
            final java.util.regex.Matcher lost = java.util.regex.Pattern.compile("at least (\\d+) store entries lost .*" +
                "\\(sequence (\\d+) recovered, (\\d+) recorded at ").matcher(report);
            assertTrue(lost.find(), report);
            assertEquals(KEYS - present, Integer.parseInt(lost.group(1)), "one sequence number per put: " + report);
            assertEquals(present, Long.parseLong(lost.group(2)), report);
            assertEquals(KEYS, Long.parseLong(lost.group(3)), report);
            assertTrue(report.contains("store.walRecovery=tolerate-tail"), report);
        }
        try (RocksStore store = RocksStore.open(crashed, Durability.DEFAULT))
        {
            assertTrue(store.walLossReport().isEmpty(), "reported once; a clean restart reports nothing: " +
                store.walLossReport());
        }
    }

    @Test
    @Timeout(60)
    void shouldReportNoLossAfterACrashWithAnIntactWalNorAfterACleanClose() throws Exception
    {
        final Path crashed = crashedStore(true);
        try (RocksStore store = RocksStore.open(crashed, Durability.DEFAULT))
        {
            assertTrue(store.walLossReport().isEmpty(), "every recorded write is in the WAL");
            store.put(key(KEYS), value(KEYS));
        }
        assertEquals(KEYS + 1, SequenceMark.read(crashed).orElseThrow().sequence(), "recorded at close");
        assertEquals("close", SequenceMark.read(crashed).orElseThrow().event());
        try (RocksStore store = RocksStore.open(crashed, Durability.DEFAULT))
        {
            assertTrue(store.walLossReport().isEmpty());
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseATornLastRecordWhenStrict() throws Exception
    {
        final Path crashed = crashedStore();
        final Path wal = newestWal(crashed);
        truncate(wal, Files.size(wal) - 10);

        final StoreException refused = assertThrows(StoreException.class, () -> open(crashed, WalRecovery.STRICT));
        assertTrue(refused.getMessage().contains("partial last record"), refused.getMessage());
    }

    @Test
    @Timeout(60)
    void shouldRecoverPointInTimeOnlyWhenAskedKeepingEveryWriteBeforeTheDamage() throws Exception
    {
        final Path crashed = crashedStore();
        final Path wal = newestWal(crashed);
        flip(wal, Files.size(wal) / 2);
        final long lastIntact = WalScan.scan(wal).lastSequenceBeforeDamage();

        try (RocksStore store = open(crashed, WalRecovery.POINT_IN_TIME))
        {
            // Sequence numbers start at 1, one per put: key k is sequence k + 1.
            for (int k = 0; k < KEYS; k++)
            {
                if (k + 1 <= lastIntact)
                {
                    assertArrayEquals(value(k), store.get(key(k)), "key " + k + " was before the damage");
                }
                else
                {
                    assertNull(store.get(key(k)), "point-in-time drops key " + k + " after the damage");
                }
            }
        }
        assertWalCopiedAside(crashed, wal);
    }

    @Test
    @Timeout(60)
    void shouldSkipOnlyTheDamagedRecordsWhenAskedToSkipCorrupted() throws Exception
    {
        final Path crashed = crashedStore();
        final Path wal = newestWal(crashed);
        flip(wal, Files.size(wal) / 2);

        try (RocksStore store = open(crashed, WalRecovery.SKIP_CORRUPTED))
        {
            assertArrayEquals(value(0), store.get(key(0)));
            assertArrayEquals(value(KEYS - 1), store.get(key(KEYS - 1)), "writes after the damage are replayed");
            final long missing = java.util.stream.IntStream.range(0, KEYS).filter(k -> store.get(key(k)) == null)
                .count();
            assertTrue(missing > 0 && missing < KEYS / 2, "only the damaged block's writes are gone: " + missing);
        }
        assertWalCopiedAside(crashed, wal);
    }

    @Test
    @Timeout(120)
    void shouldKeepABoundedNumberOfRocksDbLogFilesAcrossRestarts() throws Exception
    {
        final Path dir = tmp.resolve("restarts");
        for (int i = 0; i < RocksStoreOpener.INFO_LOG_FILES + 7; i++)
        {
            try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
            {
                store.put(key(i), value(i));
            }
        }
        try (Stream<Path> files = Files.list(dir))
        {
            final List<String> logs = files.map(p -> p.getFileName().toString()).filter(n -> n.startsWith("LOG"))
                .toList();
            assertTrue(logs.size() <= RocksStoreOpener.INFO_LOG_FILES, "at most " + RocksStoreOpener.INFO_LOG_FILES +
                " info LOG files after " + (RocksStoreOpener.INFO_LOG_FILES + 7) + " restarts: " + logs);
        }
    }

    private static RocksStore open(final Path dir, final WalRecovery recovery)
    {
        return RocksStore.open(dir, Durability.DEFAULT, RocksStore.DEFAULT_QUEUE_CAPACITY,
            RocksStore.DEFAULT_WRITE_BUFFER_SIZE, recovery, 0);
    }

    /** KEYS puts, then a copy of the directory taken while the store is still open. */
    private Path crashedStore() throws IOException
    {
        return crashedStore(false);
    }

    /**
     * KEYS puts, then (when {@code marked}) the sequence recorded as the store's periodic task does, then a copy of
     * the directory taken while the store is still open.
     */
    private Path crashedStore(final boolean marked) throws IOException
    {
        final Path live = tmp.resolve("live");
        final Path crashed = tmp.resolve("crashed");
        try (RocksStore store = RocksStore.open(live, Durability.DEFAULT))
        {
            for (int k = 0; k < KEYS; k++)
            {
                store.put(key(k), value(k));
            }
            if (marked)
            {
                store.recordSequenceMark("periodic");
            }
            Files.createDirectories(crashed);
            try (Stream<Path> files = Files.list(live))
            {
                for (final Path f : files.toList())
                {
                    if (Files.isRegularFile(f))
                    {
                        Files.copy(f, crashed.resolve(f.getFileName()));
                    }
                }
            }
        }
        return crashed;
    }

    private static Path newestWal(final Path dir) throws IOException
    {
        final List<Path> wals = WalScan.walFiles(dir);
        assertFalse(wals.isEmpty(), "no WAL in " + dir);
        return wals.get(wals.size() - 1);
    }

    private static void assertWalCopiedAside(final Path dir, final Path wal) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            final Path copy = files.filter(p -> p.getFileName().toString().startsWith("wal-damaged-")).findFirst()
                .orElseThrow(() -> new AssertionError("no wal-damaged-* copy in " + dir));
            assertTrue(WalScan.scan(copy.resolve(wal.getFileName())).damaged(), "the copy is the WAL as found");
        }
    }

    /** Invert 16 bytes at {@code offset}, as the measurement did. */
    static void flip(final Path file, final long offset) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            final byte[] bytes = new byte[16];
            f.seek(offset);
            f.readFully(bytes);
            for (int i = 0; i < bytes.length; i++)
            {
                bytes[i] = (byte)~bytes[i];
            }
            f.seek(offset);
            f.write(bytes);
        }
    }

    private static void truncate(final Path file, final long size) throws IOException
    {
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw"))
        {
            f.setLength(size);
        }
    }

    private static byte[] key(final int k)
    {
        return ("wal/" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k)
    {
        final byte[] v = new byte[VALUE_BYTES];
        Arrays.fill(v, (byte)('a' + k % 26));
        v[0] = (byte)k;
        v[1] = (byte)(k >> 8);
        return v;
    }
}

package io.rdmakv.it.e2e;

import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.server.store.SequenceMark;
import io.rdmakv.server.store.WalFileReport;
import io.rdmakv.server.store.WalScan;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A damaged write-ahead log never loses acknowledged writes silently, with real server processes: a node is written
 * to, killed with SIGKILL (every write is then in its newest WAL only), and copies of its data directory are damaged
 * and started. Damage in the middle refuses the start with the file, the offset and the fix; a torn last record
 * starts with every write before it; {@code store.walRecovery=point-in-time} starts and logs the loss at ERROR; a WAL
 * cut in half starts under the default {@code tolerate-tail} and logs at ERROR how many writes it lost, counted
 * against the sequence the node recorded ({@link SequenceMark}; the writer waits for that record before the kill).
 */
@ExtendWith(ProcessJanitor.class)
class WalDamageTest
{
    private static final int KEYS = 1_000;
    private static final Pattern LOST = Pattern.compile("ERROR .*at least (\\d+) store entries lost");
    /** Each PUT is one batch of two entries: the key, and the record of the client's write id (WriteRecords). */
    private static final int ENTRIES_PER_PUT = 2;

    @TempDir
    static Path tmp;

    /** The data directory of a node killed after KEYS acknowledged puts. */
    private static Path killed;

    @BeforeAll
    @Timeout(240)
    static void writeAndKill() throws Exception
    {
        killed = tmp.resolve("killed");
        final ServerProcess server = ServerProcess.builder(killed).name("wal-writer").start();
        try (KvClient client = client(server))
        {
            for (int k = 0; k < KEYS; k++)
            {
                client.put(key(k), value(k)); // acknowledged before the next one is sent
            }
        }
        awaitSequenceMark(killed);
        server.kill();
    }

    /**
     * Wait until the node recorded a sequence at least as high as its WAL's last write (its periodic record,
     * {@link SequenceMark}): woken by the file system's events on the directory, no sleep.
     */
    private static void awaitSequenceMark(final Path data) throws IOException, InterruptedException
    {
        long last = -1;
        for (final WalFileReport r : WalScan.scanAll(data))
        {
            last = Math.max(last, r.lastSequence());
        }
        assertTrue(last >= KEYS, "every put is in the WAL: last sequence " + last);
        try (WatchService watch = FileSystems.getDefault().newWatchService())
        {
            data.register(watch, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            while (SequenceMark.read(data).map(SequenceMark::sequence).orElse(-1L) < last)
            {
                final WatchKey key = watch.take();
                key.pollEvents();
                key.reset();
            }
        }
    }

    @Test
    @Timeout(240)
    void shouldStartUnderTheDefaultRecoveryAfterAWalCutInHalfAndSayAtErrorHowManyWritesWereLost() throws Exception
    {
        final Path data = copyOfKilled("cut");
        final Path wal = newestWal(data);
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw"))
        {
            f.setLength(f.length() / 2); // the measurement: a disk losing unsynced data, or a bad copy
        }

        final ServerProcess server = ServerProcess.builder(data).name("wal-cut").start();
        final Matcher lost = LOST.matcher(Files.readString(server.stderrLog()));
        assertTrue(lost.find(), "the loss is logged at ERROR under the default store.walRecovery=tolerate-tail" +
            server.diagnosis());
        try (KvClient client = client(server))
        {
            final List<byte[]> values = client.multiGet(keys());
            final long present = values.stream().filter(v -> v != null).count();
            assertTrue(present > 0 && present < KEYS, "a prefix survives: " + present);
            assertEquals((KEYS - present) * ENTRIES_PER_PUT, Long.parseLong(lost.group(1)),
                "the ERROR line counts the lost writes' entries");
        }
        server.stop(Duration.ofSeconds(30));

        final ServerProcess again = ServerProcess.builder(data).name("wal-cut-again").start();
        try
        {
            assertFalse(Files.readString(again.stderrLog()).contains(" ERROR "),
                "a clean restart logs no ERROR" + again.diagnosis());
        }
        finally
        {
            again.stop(Duration.ofSeconds(30));
        }
    }

    @Test
    @Timeout(240)
    void shouldRefuseToStartOnAWalDamagedInTheMiddleNamingTheFileTheOffsetAndTheFix() throws Exception
    {
        final Path data = copyOfKilled("middle");
        final Path wal = newestWal(data);
        flip(wal, Files.size(wal) / 2);

        final ServerProcess server = ServerProcess.builder(data).name("wal-middle").build();
        assertThrows(IllegalStateException.class, server::start, "a node with a damaged WAL must not start");
        assertFalse(server.isAlive());
        final String stderr = Files.readString(server.stderrLog());
        assertTrue(stderr.contains("cannot start: the write-ahead log is damaged: " + wal.toAbsolutePath() +
            " at offset "), stderr);
        assertTrue(stderr.contains("checksum mismatch"), stderr);
        assertTrue(stderr.contains("Fix: restore this data directory") &&
            stderr.contains("store.walRecovery=point-in-time"), "the message names the fix: " + stderr);
    }

    @Test
    @Timeout(240)
    void shouldStartAfterATornLastRecordWithEveryAcknowledgedWriteBeforeIt() throws Exception
    {
        final Path data = copyOfKilled("tail");
        final Path wal = newestWal(data);
        try (RandomAccessFile f = new RandomAccessFile(wal.toFile(), "rw"))
        {
            f.setLength(f.length() - 10); // inside the last record: a write cut short
        }

        final ServerProcess server = ServerProcess.builder(data).name("wal-tail").start();
        try (KvClient client = client(server))
        {
            final List<byte[]> values = client.multiGet(keys());
            for (int k = 0; k < KEYS - 1; k++)
            {
                assertArrayEquals(value(k), values.get(k), "key " + k + " was acknowledged before the torn record");
            }
        }
        assertTrue(Files.readString(server.stderrLog()).contains("ends in a partial record"),
            "the torn record is logged" + server.diagnosis());
    }

    @Test
    @Timeout(240)
    void shouldStartWithPointInTimeRecoveryAndLogAtErrorHowManyWritesWereLost() throws Exception
    {
        final Path data = copyOfKilled("recover");
        final Path wal = newestWal(data);
        flip(wal, Files.size(wal) / 2);

        final ServerProcess server = ServerProcess.builder(data).name("wal-recover")
            .setting("store.walRecovery", "point-in-time").start();
        final String stderr = Files.readString(server.stderrLog());
        final Matcher lost = LOST.matcher(stderr);
        assertTrue(lost.find(), "the loss is logged at ERROR" + server.diagnosis());
        try (KvClient client = client(server))
        {
            final List<byte[]> values = client.multiGet(keys());
            int present = 0;
            for (int k = 0; k < KEYS; k++)
            {
                if (values.get(k) != null)
                {
                    assertArrayEquals(value(k), values.get(k), "key " + k);
                    present++;
                }
            }
            assertTrue(present > 0 && present < KEYS, "a prefix survives: " + present);
            assertEquals((KEYS - present) * ENTRIES_PER_PUT, Long.parseLong(lost.group(1)),
                "the ERROR line counts the lost writes' entries");
            for (int k = 0; k < present; k++)
            {
                assertArrayEquals(value(k), values.get(k), "point-in-time keeps every write before the damage");
            }
        }
        try (Stream<Path> files = Files.list(data))
        {
            assertTrue(files.anyMatch(p -> p.getFileName().toString().startsWith("wal-damaged-")),
                "the WAL as found is copied aside");
        }
    }

    private static KvClient client(final ServerProcess server)
    {
        return KvClient.builder().server(server.seed()).transport(TestTransport.name()).getMode(GetMode.RPC)
            .requestTimeout(Duration.ofSeconds(10)).build();
    }

    private static Path copyOfKilled(final String name) throws IOException
    {
        final Path copy = tmp.resolve(name);
        Files.createDirectories(copy);
        try (Stream<Path> files = Files.list(killed))
        {
            for (final Path f : files.filter(Files::isRegularFile).toList())
            {
                Files.copy(f, copy.resolve(f.getFileName()));
            }
        }
        return copy;
    }

    private static Path newestWal(final Path data) throws IOException
    {
        try (Stream<Path> files = Files.list(data))
        {
            final Path wal = files.filter(p -> p.getFileName().toString().matches("\\d+\\.log"))
                .max(Comparator.comparing(p -> Long.parseLong(p.getFileName().toString().replace(".log", ""))))
                .orElseThrow(() -> new AssertionError("no WAL in " + data));
            assertTrue(Files.size(wal) > 64 * 1024, "every put is in the newest WAL: " + Files.size(wal) + " bytes");
            return wal;
        }
    }

    /** Invert 16 bytes at {@code offset}, as the measurement did. */
    private static void flip(final Path file, final long offset) throws IOException
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

    private static List<byte[]> keys()
    {
        final List<byte[]> keys = new ArrayList<>();
        for (int k = 0; k < KEYS; k++)
        {
            keys.add(key(k));
        }
        return keys;
    }

    private static byte[] key(final int k)
    {
        return ("wal/" + k).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int k)
    {
        return ("value-" + k + "-" + "x".repeat(100)).getBytes(StandardCharsets.UTF_8);
    }
}

package io.rdmakv.cli.backup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The files of a cluster backup: range files, the manifest's checks, the restore's progress marker. */
class BackupFilesTest
{
    @TempDir
    Path dir;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static BackupManifest.Range range(final int first, final int last, final String file)
    {
        return new BackupManifest.Range(first, last, 7, 1, file, 0, 0, "00", 1);
    }

    private static BackupManifest manifest(final List<BackupManifest.Range> ranges)
    {
        return new BackupManifest(BackupManifest.FORMAT, "2026-12-06T21:00:00Z", "127.0.0.1:7400", 9, 0, 0, ranges);
    }

    @Test
    void shouldReadBackWhatWasWrittenWithTheDigestOfTheSameEntries() throws IOException
    {
        final Path file = dir.resolve("r.kv");
        final byte[] big = new byte[70_000];
        Arrays.fill(big, (byte)3);
        final RangeFile.Summary written;
        try (RangeFile.Writer w = new RangeFile.Writer(file))
        {
            w.accept(b("a"), b("1"));
            w.accept(new byte[] {(byte)0xff, 0}, new byte[0]);
            w.accept(b("c"), big);
            written = w.finish();
        }
        final List<byte[]> seen = new ArrayList<>();
        final RangeFile.Summary read = RangeFile.read(file, (k, v) ->
        {
            seen.add(k);
            seen.add(v);
        });
        assertEquals(written, read);
        assertEquals(3, read.keys());
        assertEquals(1 + 1 + 2 + 1 + big.length, read.bytes());
        assertEquals(Files.size(file), 3 * RangeFile.ENTRY_HEADER_LENGTH + read.bytes(), "entries and nothing else");
        assertArrayEquals(big, seen.get(5));
        assertArrayEquals(new byte[] {(byte)0xff, 0}, seen.get(2));

        final RangeFile.Digest digest = new RangeFile.Digest();
        digest.add(b("a"), b("1"));
        digest.add(new byte[] {(byte)0xff, 0}, new byte[0]);
        digest.add(b("c"), big);
        assertEquals(read, digest.summary(), "values read back from a cluster digest as the file does");
        final RangeFile.Digest other = new RangeFile.Digest();
        other.add(b("a"), b("2"));
        other.add(new byte[] {(byte)0xff, 0}, new byte[0]);
        other.add(b("c"), big);
        assertNotEquals(read.sha256(), other.summary().sha256());
    }

    @Test
    void shouldRefuseARangeFileCutShort() throws IOException
    {
        final Path file = dir.resolve("r.kv");
        try (RangeFile.Writer w = new RangeFile.Writer(file))
        {
            w.accept(b("a"), b("12345"));
            w.accept(b("b"), b("12345"));
            w.finish();
        }
        final byte[] bytes = Files.readAllBytes(file);
        Files.write(file, Arrays.copyOf(bytes, bytes.length - 2));
        final IOException ex = assertThrows(IOException.class, () -> RangeFile.read(file, (k, v) -> { }));
        assertTrue(ex.getMessage().contains("is cut short after 1 entries"), ex.getMessage());
    }

    @Test
    void shouldWriteAndReadAManifestCoveringEveryHashSlot() throws IOException
    {
        final BackupManifest m = manifest(List.of(range(8192, 16383, "b.kv"), range(0, 8191, "a.kv")));
        m.write(dir);
        final BackupManifest read = BackupManifest.read(dir);
        assertEquals(m, read);
        assertEquals(0, read.ranges().get(0).firstSlot(), "by first slot");
        assertTrue(Files.readString(dir.resolve(BackupManifest.FILE_NAME)).contains("\"mapEpoch\" : 9"));
    }

    @Test
    void shouldRefuseAManifestThatDoesNotCoverEveryHashSlotOnceOrNamesAFileOutside() throws IOException
    {
        assertRefused(manifest(List.of(range(0, 100, "a.kv"), range(102, 16383, "b.kv"))), "does not follow slot 100");
        assertRefused(manifest(List.of(range(0, 100, "a.kv"), range(50, 16383, "b.kv"))), "does not follow slot 100");
        assertRefused(manifest(List.of(range(0, 16000, "a.kv"))), "the ranges end at slot 16000");
        assertRefused(manifest(List.of(range(0, 16383, "../a.kv"))), "names a file outside the backup");
        assertRefused(new BackupManifest(3, "t", "s", 1, 0, 0, List.of(range(0, 16383, "a.kv"))),
            "format 3, this build reads formats 1 and 2");
        Files.delete(dir.resolve(BackupManifest.FILE_NAME));
        final IOException missing = assertThrows(IOException.class, () -> BackupManifest.read(dir));
        assertTrue(missing.getMessage().contains("not a cluster backup"), missing.getMessage());
        Files.writeString(dir.resolve(BackupManifest.FILE_NAME), "{\"format\": 1, \"ranges\": [");
        final IOException broken = assertThrows(IOException.class, () -> BackupManifest.read(dir));
        assertTrue(broken.getMessage().contains("cannot be read"), broken.getMessage());
    }

    private void assertRefused(final BackupManifest manifest, final String message) throws IOException
    {
        manifest.write(dir);
        final IOException ex = assertThrows(IOException.class, () -> BackupManifest.read(dir));
        assertTrue(ex.getMessage().contains(message), ex.getMessage());
    }

    @Test
    void shouldKeepTheProgressOfOneRestoreAndRefuseAnothers() throws IOException
    {
        final BackupManifest m = manifest(List.of(range(0, 16383, "a.kv")));
        final Path marker = dir.resolve(RestoreProgress.FILE_NAME);
        final RestoreProgress fresh = RestoreProgress.readOrStart(marker, m, "h:1");
        assertEquals(0, fresh.doneIn("a.kv"));
        fresh.with("a.kv", 512).write(marker);
        assertEquals(512, RestoreProgress.readOrStart(marker, m, "h:1").doneIn("a.kv"));
        assertEquals(Map.of("a.kv", 512L), RestoreProgress.readOrStart(marker, m, "h:1").done());

        final IOException otherTarget = assertThrows(IOException.class,
            () -> RestoreProgress.readOrStart(marker, m, "h:2"));
        assertTrue(otherTarget.getMessage().contains("is of another restore") &&
            otherTarget.getMessage().contains("--restart"), otherTarget.getMessage());
        final BackupManifest otherBackup = new BackupManifest(BackupManifest.FORMAT, "2026-12-07T00:00:00Z",
            "127.0.0.1:7400", 9, 0, 0, m.ranges());
        assertThrows(IOException.class, () -> RestoreProgress.readOrStart(marker, otherBackup, "h:1"));
        Files.writeString(marker, "not json");
        final IOException broken = assertThrows(IOException.class,
            () -> RestoreProgress.readOrStart(marker, m, "h:1"));
        assertTrue(broken.getMessage().contains("cannot be read"), broken.getMessage());
    }
}

package io.rdmakv.server;

import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.counters.ServerCounter;
import io.rdmakv.server.store.DiskFullGuard;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * A node whose disk really fills: its data directory on a small tmpfs mounted by the test (root; skipped with the
 * reason where mounting is not permitted). PUTs until refused, then: every PUT refused with DISK_FULL and its reason,
 * DELETEs served, and once the keys are gone the node takes PUTs again, without a restart; the ERROR lines it logged
 * are counted (bounded, not one per failed request).
 */
class DiskFullTest
{
    private static final int VALUE_BYTES = 32 * 1024;
    private static final int REFUSED_PUTS = 300;
    private static final long STATE_TIMEOUT_MILLIS = 30_000;

    @TempDir
    Path dir;

    /**
     * The default 8 MiB memtable: a flush (or the WAL) meets ENOSPC and RocksDB refuses every write until it resumed.
     * Sizes with a margin: once the reserve is released, what is free (the reserve and what the failed flush left)
     * stays well under the resume threshold (twice the reserve, 64 MiB) until the keys are deleted, whatever RocksDB's
     * background work frees meanwhile.
     */
    @Test
    @Timeout(120)
    void shouldRefusePutsServeDeletesAndTakePutsAgainWithoutARestartWhenTheDiskIsFull() throws Exception
    {
        final long reserveBytes = 32L << 20;
        final Path mount = Files.createDirectories(dir.resolve("disk"));
        final String refusal = mount(mount, "96m");
        assumeTrue(refusal == null, "cannot mount a tmpfs here (needs root): " + refusal);
        final Path data = mount.resolve("data");
        final Path reserve = data.resolve("disk-reserve");
        final ErrorLines errors = ErrorLines.capture();
        final long episodes;
        final int deleteRetries;
        try (KvServer server = KvServer.start(KvServerTest.testConfig(data, Map.of(
                "store.diskReserve", Long.toString(reserveBytes))));
             RawClient client = RawClient.attached(server))
        {
            final DiskFullGuard guard = server.store().diskGuard();
            assertEquals(reserveBytes, Files.size(reserve), "the reserve is allocated at start");

            final List<byte[]> stored = new ArrayList<>();
            RawClient.Reply refused = null;
            for (int i = 0; i < 4_000 && refused == null; i++)
            {
                final byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                final RawClient.Reply put = client.put(key, value(i));
                if (put.status() == Status.OK)
                {
                    stored.add(key);
                }
                else if (put.status() == Status.DISK_FULL)
                {
                    refused = put;
                }
                else
                {
                    fail("PUT " + i + " answered " + put.status() + ": " + put.text());
                }
            }
            assertNotNull(refused, "96 MiB never filled with " + stored.size() + " values of " + VALUE_BYTES + " B");
            assertTrue(stored.size() > 100, "values stored before the disk filled: " + stored.size());
            assertTrue(guard.full(), "the guard saw the full disk");
            assertFalse(Files.exists(reserve), "the reserve was released");

            final long refusalsBefore = server.counters().get(ServerCounter.DISK_FULL_REFUSALS);
            for (int i = 0; i < REFUSED_PUTS; i++)
            {
                final RawClient.Reply put = client.put(("more-" + i).getBytes(StandardCharsets.UTF_8), value(i));
                assertEquals(Status.DISK_FULL, put.status(), "PUT on a full disk: " + put.text());
                assertEquals(DiskFullGuard.REFUSAL, put.text());
            }
            assertEquals(refusalsBefore + REFUSED_PUTS, server.counters().get(ServerCounter.DISK_FULL_REFUSALS));

            assertTrue(await(() -> guard.state() == DiskFullGuard.State.FULL),
                "RocksDB takes writes again once the reserve is released: " + guard.state());
            deleteRetries = deleteAll(client, stored);
            assertEquals(Status.NOT_FOUND, client.get(stored.get(0)).status());

            assertTrue(await(() -> !guard.full()), "the node takes PUTs again once the deleted values left the " +
                "disk: " + guard.state() + ", " + Files.getFileStore(data).getUsableSpace() + " bytes free");
            assertEquals(reserveBytes, Files.size(reserve), "the reserve is back");
            final byte[] after = "after".getBytes(StandardCharsets.UTF_8);
            assertEquals(Status.OK, client.put(after, value(7)).status(), "PUT after the disk was cleared");
            assertArrayEquals(value(7), client.get(after).value());
            episodes = guard.episodes();
        }
        finally
        {
            errors.close();
            unmount(mount);
        }
        final List<String> lines = errors.lines();
        // One ERROR line per time the disk filled (the guard's); failed requests are not logged one by one.
        assertEquals(1, episodes, "the disk filled once");
        assertTrue(!lines.isEmpty() && lines.size() <= episodes + 1, REFUSED_PUTS + " refused PUTs and " +
            deleteRetries + " DELETEs retried logged " + lines.size() + " ERROR lines: " + lines);
        assertTrue(lines.get(0).contains("disk full at"), lines.get(0));
    }

    /** Delete every key; a DELETE answered DISK_FULL (RocksDB stopped again for a moment) is retried. */
    private static int deleteAll(final RawClient client, final List<byte[]> keys) throws Exception
    {
        int retries = 0;
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STATE_TIMEOUT_MILLIS);
        for (final byte[] key : keys)
        {
            RawClient.Reply delete = client.delete(key);
            while (delete.status() == Status.DISK_FULL && System.nanoTime() - deadline < 0)
            {
                retries++;
                Thread.sleep(10);
                delete = client.delete(key);
            }
            assertEquals(Status.OK, delete.status(), "DELETE on a full disk: " + delete.text());
        }
        return retries;
    }

    private static byte[] value(final int i)
    {
        final byte[] v = new byte[VALUE_BYTES];
        for (int j = 0; j < v.length; j++)
        {
            v[j] = (byte)(i * 31 + j * 7 + (j >> 8));
        }
        return v;
    }

    private static boolean await(final BooleanSupplier condition) throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(STATE_TIMEOUT_MILLIS);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() - deadline > 0)
            {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

    /** @return null when mounted, else why not. */
    private static String mount(final Path at, final String size) throws IOException, InterruptedException
    {
        try
        {
            final Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", at.toString())
                .redirectErrorStream(true).start();
            final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return p.waitFor() == 0 ? null : "mount exited " + p.exitValue() + ": " + out;
        }
        catch (final IOException ex)
        {
            return ex.toString();
        }
    }

    private static void unmount(final Path at) throws IOException, InterruptedException
    {
        if (new ProcessBuilder("umount", at.toString()).inheritIO().start().waitFor() != 0)
        {
            new ProcessBuilder("umount", "-l", at.toString()).inheritIO().start().waitFor();
        }
    }

    /**
     * The ERROR lines the log (slf4j-simple) writes to the standard streams while captured; they still reach the
     * real streams. slf4j-simple looks its stream up at every line, so replacing them is enough.
     */
    private static final class ErrorLines implements AutoCloseable
    {
        private final PrintStream out = System.out;
        private final PrintStream err = System.err;
        private final ByteArrayOutputStream copy = new ByteArrayOutputStream();

        static ErrorLines capture()
        {
            final ErrorLines lines = new ErrorLines();
            System.setOut(lines.tee(lines.out));
            System.setErr(lines.tee(lines.err));
            return lines;
        }

        private PrintStream tee(final PrintStream original)
        {
            return new PrintStream(new OutputStream()
            {
                @Override
                public void write(final int b)
                {
                    original.write(b);
                    synchronized (copy)
                    {
                        copy.write(b);
                    }
                }

                @Override
                public void write(final byte[] b, final int off, final int len)
                {
                    original.write(b, off, len);
                    synchronized (copy)
                    {
                        copy.write(b, off, len);
                    }
                }
            }, true);
        }

        List<String> lines()
        {
            final String text;
            synchronized (copy)
            {
                text = copy.toString(StandardCharsets.UTF_8);
            }
            return text.lines().filter(l -> l.contains(" ERROR ")).toList();
        }

        @Override
        public void close()
        {
            System.setOut(out);
            System.setErr(err);
        }
    }
}

package io.rdmakv.it.e2e;

import io.rdmakv.cli.backup.BackupCommand;
import io.rdmakv.cli.backup.RestoreCommand;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.client.WriteResult;
import io.rdmakv.protocol.layout.ValueRecord;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code rdmakv backup} / {@code restore} round trip with real server processes: a backup of a running node holds
 * its keys as of the backup (later writes are not in it), restores into an empty node, and is itself a data
 * directory a node starts from.
 */
@ExtendWith(ProcessJanitor.class)
class BackupRestoreTest
{
    private static final int KEYS = 2_000;

    @TempDir
    Path tmp;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static KvClient client(final ServerProcess server)
    {
        return KvClient.builder().server(server.seed()).transport(TestTransport.name()).getMode(GetMode.RPC)
            .connectTimeout(Duration.ofSeconds(30)).requestTimeout(Duration.ofSeconds(10)).build();
    }

    /**
     * A backup and a restore keep each key's data version and expiry: the restored key has the version a client read
     * before the backup (a replace against it applies), its expiry is the same instant; a key expired before the
     * backup is not in it, and one that expired between backup and restore (written into the backup's store here, as
     * the clock would leave it) is not restored. A node started on the backup directory keeps them too.
     */
    @Test
    @Timeout(240)
    void shouldKeepDataVersionsAndExpiryAndLeaveExpiredKeysOut() throws Exception
    {
        final Path backup = tmp.resolve("backup");
        final Instant expiry = Instant.now().plus(Duration.ofHours(1));
        final long expiring;
        final long plain;
        final long counter;
        try (ServerProcess source = ServerProcess.builder(tmp.resolve("source")).name("source").start();
            KvClient client = client(source))
        {
            expiring = client.put(b("expiring"), b("e"), expiry);
            plain = client.putIfAbsent(b("plain"), b("p")).version();
            client.increment(b("counter"), 41);
            counter = client.getWithVersion(b("counter")).version();
            client.put(b("gone"), b("g"), Instant.now().minusSeconds(60));
            assertNull(client.get(b("gone")), "written expired: absent");
            assertEquals(0, BackupCommand.run("--server", source.seed(), "--out", backup.toString()));
        }
        final long expiryMillis = expiry.toEpochMilli();
        try (RocksStore store = RocksStore.open(backup, Durability.DEFAULT))
        {
            assertNull(store.get(b("gone")), "expired at the backup: left out");
            assertEquals(expiring, ValueRecord.dataVersion(store.getRecord(b("expiring"))));
            assertEquals(expiryMillis, ValueRecord.expiryMillis(store.getRecord(b("expiring"))));
            // As if this key expired after the backup was taken and before the restore.
            store.putRecord(b("lapsed"), ValueRecord.of(b("l"), plain + 1, 1));
        }
        try (ServerProcess target = ServerProcess.builder(tmp.resolve("target")).name("target").start();
            KvClient client = client(target))
        {
            assertEquals(0, RestoreCommand.run("--in", backup.toString(), "--server", target.seed()));
            assertRestored(client, expiring, plain, counter, expiryMillis);
            final WriteResult replaced = client.replace(b("plain"), plain, b("p2"));
            assertTrue(replaced.applied(), "a replace against the version read before the backup applies");
            assertTrue(Long.compareUnsigned(replaced.version(), plain) > 0, "a later version is above the kept one");
            assertEquals(42, client.increment(b("counter"), 1), "the counter goes on from its restored value");
        }
        try (ServerProcess fromBackup = ServerProcess.builder(backup).name("from-backup").start();
            KvClient client = client(fromBackup))
        {
            assertRestored(client, expiring, plain, counter, expiryMillis);
        }
    }

    private static void assertRestored(final KvClient client, final long expiring, final long plain,
        final long counter, final long expiryMillis)
    {
        assertEquals(expiring, client.getWithVersion(b("expiring")).version(), "the expiring key's version kept");
        final long ttl = client.ttlMillis(b("expiring"));
        assertTrue(ttl > 0 && ttl <= expiryMillis - System.currentTimeMillis() + 1, "expiry kept: " + ttl);
        assertEquals(plain, client.getWithVersion(b("plain")).version(), "the version kept");
        assertEquals(-1, client.ttlMillis(b("plain")), "no expiry stays none");
        assertEquals(counter, client.getWithVersion(b("counter")).version());
        assertNull(client.get(b("gone")), "expired before the backup");
        assertNull(client.get(b("lapsed")), "expired before the restore");
        assertEquals(-2, client.ttlMillis(b("lapsed")));
    }

    @Test
    @Timeout(240)
    void shouldBackUpARunningNodeAndRestoreItIntoAnother() throws Exception
    {
        final Path backup = tmp.resolve("backup");
        try (ServerProcess source = ServerProcess.builder(tmp.resolve("source")).name("source")
            .setting("auth.secret", "s3cret").start())
        {
            try (KvClient client = KvClient.builder().server(source.seed()).transport(TestTransport.name())
                .getMode(GetMode.RPC).secret(b("s3cret")).connectTimeout(Duration.ofSeconds(30))
                .requestTimeout(Duration.ofSeconds(10)).build())
            {
                for (int i = 0; i < KEYS; i++)
                {
                    client.put(b("key-" + i), b("value-" + i + "-".repeat(i % 300)));
                }
                assertNotEquals(0, BackupCommand.run("--server", source.seed(), "--out", tmp.resolve("x").toString()),
                    "no secret: refused");
                final Path secretFile = java.nio.file.Files.writeString(tmp.resolve("secret"), "s3cret\n");
                assertEquals(0, BackupCommand.run("--server", source.seed(), "--secret-file", secretFile.toString(),
                    "--out",
                    backup.toString(), "--page-bytes", "65536"));
                client.put(b("key-0"), b("after the backup"));
                client.put(b("only-after"), b("x"));
            }
        }
        try (ServerProcess target = ServerProcess.builder(tmp.resolve("target")).name("target").start();
            KvClient client = client(target))
        {
            assertNull(client.get(b("key-1")), "an empty node");
            assertEquals(0, RestoreCommand.run("--in", backup.toString(), "--server", target.seed()));
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(b("value-" + i + "-".repeat(i % 300)), client.get(b("key-" + i)), "key-" + i);
            }
            assertNull(client.get(b("only-after")), "written after the backup: not in it");
        }
        try (ServerProcess fromBackup = ServerProcess.builder(backup).name("from-backup").start();
            KvClient client = client(fromBackup))
        {
            assertArrayEquals(b("value-7" + "-".repeat(7)), client.get(b("key-7")), "a node starts on the backup");
        }
    }
}

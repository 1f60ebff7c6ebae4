package io.rdmakv.it.e2e;

import io.rdmakv.cli.backup.BackupCommand;
import io.rdmakv.cli.backup.RestoreCommand;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

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

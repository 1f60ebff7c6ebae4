package io.rdmakv.it.auth;

import io.rdmakv.cli.Io;
import io.rdmakv.cli.RdmakvMain;
import io.rdmakv.client.KvClient;
import io.rdmakv.it.cluster.LocalCluster;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.protocol.auth.UsersFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import io.rdmakv.it.support.ProcessJanitor;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A replicated cluster (3 node processes, one backup per range) with users beside the nodes' shared secret: a
 * read-only user's {@code cluster failover} is refused FORBIDDEN and changes nothing; the admin's moves the range to
 * its backup, and the cluster keeps serving a readwrite user on it.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(value = 15, unit = TimeUnit.MINUTES)
class ClusterUsersTest
{
    @TempDir
    Path tmp;

    private Path file(final String name, final String content) throws Exception
    {
        final Path f = Files.writeString(tmp.resolve(name), content + "\n");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        return f;
    }

    private static String[] run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = RdmakvMain.commandLine(new Io(System.in, new PrintStream(out, true), new PrintStream(err,
            true))).execute(args);
        return new String[] {Integer.toString(code), out.toString(StandardCharsets.UTF_8),
            err.toString(StandardCharsets.UTF_8)};
    }

    @Test
    void shouldLetOnlyTheAdminFailARangeOver() throws Exception
    {
        final SecureRandom random = new SecureRandom();
        final Path users = tmp.resolve("users");
        UsersFile.write(users, List.of(
            new User("ops", Role.ADMIN, List.of(), ScramCredential.create("ops-pw".toCharArray(), 4096, random)),
            new User("app", Role.READWRITE, List.of(), ScramCredential.create("app-pw".toCharArray(), 4096, random)),
            new User("viewer", Role.READ, List.of(), ScramCredential.create("viewer-pw".toCharArray(), 4096,
                random))));
        try (LocalCluster cluster = LocalCluster.startWithSecret(tmp.resolve("cluster"), 3, 1, 2000,
            "cluster-users-secret", "auth.usersFile", users.toString()))
        {
            final LocalCluster.Range range = LocalCluster.ranges(cluster.statusJson()).get(0);
            final int backup = range.backups().get(0);
            final String seed = cluster.node(1).seed();

            final String[] refused = run("cluster", "failover", "-s", seed, "--slot", Integer.toString(range.first()),
                "--to", Integer.toString(backup), "--user", "viewer", "--password-file",
                file("viewer.pw", "viewer-pw").toString());
            assertEquals("3", refused[0], refused[1] + refused[2]);
            assertTrue(refused[2].contains("FORBIDDEN") && refused[2].contains("needs the role admin"), refused[2]);
            assertEquals(range.primary(), LocalCluster.ranges(cluster.statusJson()).get(0).primary(),
                "the refused failover changed nothing");

            final String[] done = run("cluster", "failover", "-s", seed, "--slot", Integer.toString(range.first()),
                "--to", Integer.toString(backup), "--user", "ops", "--password-file",
                file("ops.pw", "ops-pw").toString(), "--json");
            assertEquals("0", done[0], done[1] + done[2]);
            assertEquals(backup, LocalCluster.ranges(cluster.statusJson()).stream()
                .filter(r -> r.first() == range.first()).findFirst().orElseThrow().primary());

            try (KvClient kv = KvClient.builder().servers(cluster.seeds()).transport("tcp")
                .user("app", "app-pw".toCharArray()).connectTimeout(TestTransport.CONNECT_TIMEOUT)
                .requestTimeout(Duration.ofSeconds(30)).build())
            {
                for (int i = 0; i < 20; i++)
                {
                    kv.put("after-failover-" + i, "v" + i);
                }
                assertArrayEquals("v7".getBytes(StandardCharsets.UTF_8), kv.get("after-failover-7"));
            }
        }
    }
}

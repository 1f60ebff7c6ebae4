package io.rdmakv.it.auth;

import io.rdmakv.cli.Io;
import io.rdmakv.cli.RdmakvMain;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvAuthenticationException;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvClientBuilder;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.transport.tls.TestCertificates;
import io.rdmakv.transport.tls.TlsSettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;
import redis.clients.jedis.exceptions.JedisDataException;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Users and roles end to end against node processes, the users file written by {@code rdmakv user add}: a read-only
 * user reads (one-sided and by RPC) but its PUT, DELETE and admin commands are refused FORBIDDEN while the node keeps
 * serving; a readwrite user limited to a prefix writes inside it only; an admin runs {@code cluster status} and
 * {@code cluster failover} (the node answers the command itself); a wrong password and an unknown user get the same
 * refusal; the shared secret keeps working beside the users; a user added while the node runs logs in without a
 * restart; RESP's {@code AUTH user password} and {@code HELLO 3 AUTH}; a client certificate names its user. No
 * password and no secret appears in any log of the run.
 */
@Timeout(300)
class UsersAndRolesTest
{
    private static final String SECRET = "users-e2e-shared-s3cret-91c2";
    private static final String READER_PW = "reader-pw-5e1d0f";
    private static final String WRITER_PW = "writer-pw-a7c3b2";
    private static final String OPS_PW = "ops-pw-33f9e8";
    private static final String LATE_PW = "late-pw-0b6d41";
    private static final List<String> ALL_SECRETS = List.of(SECRET, READER_PW, WRITER_PW, OPS_PW, LATE_PW);

    @TempDir
    Path tmp;

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private Path privateFile(final String name, final String content) throws Exception
    {
        final Path file = Files.writeString(tmp.resolve(name), content + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-------"));
        return file;
    }

    /** {@code rdmakv ...} in this JVM: exit code, stdout, stderr. */
    private record Run(int code, String out, String err)
    {
    }

    /** Everything every command of the test printed, for the check that no password or secret is in it. */
    private final StringBuilder commandOutput = new StringBuilder();

    private Run rdmakv(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int code = RdmakvMain.commandLine(new Io(System.in, new PrintStream(out, true), new PrintStream(err,
            true))).execute(args);
        final Run run = new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        commandOutput.append(run.out()).append(run.err());
        return run;
    }

    private Path addUser(final Path users, final String name, final String role, final String password,
        final String... prefixes) throws Exception
    {
        final List<String> args = new ArrayList<>(List.of("user", "add", name, "--role", role, "--users-file",
            users.toString(), "--iterations", "4096", "--password-file", privateFile(name + ".pw", password)
            .toString()));
        for (final String p : prefixes)
        {
            args.addAll(List.of("--prefix", p));
        }
        final Run run = rdmakv(args.toArray(String[]::new));
        assertEquals(0, run.code(), run.err());
        return users;
    }

    private static KvClientBuilder client(final ServerProcess node)
    {
        return KvClient.builder().server(node.seed()).transport("tcp").getMode(GetMode.RPC)
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(20));
    }

    private KvClientBuilder as(final ServerProcess node, final String user, final String password) throws Exception
    {
        return client(node).user(user, privateFile(user + ".login", password));
    }

    private static KvException refused(final Runnable call)
    {
        return assertThrows(KvException.class, call::run);
    }

    @Test
    void shouldGiveEachUserWhatItsRoleAllowsAndKeepServing() throws Exception
    {
        final Path users = tmp.resolve("users");
        addUser(users, "reader", "read", READER_PW);
        addUser(users, "writer", "readwrite", WRITER_PW, "app:");
        addUser(users, "ops", "admin", OPS_PW);
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(users)));
        assertFalse(Files.readString(users).contains(READER_PW), "the users file keeps no password");

        final int respPort = FreePorts.take(1)[0];
        try (ServerProcess node = ServerProcess.builder(tmp.resolve("node")).name("users-node")
            .setting("transport", "tcp").setting("auth.usersFile", users.toString())
            .setting("auth.secretFile", privateFile("secret", SECRET).toString())
            .setting("resp.port", Integer.toString(respPort)).start())
        {
            long forbidden = 0;
            try (KvClient ops = as(node, "ops", OPS_PW).build())
            {
                ops.put(b("app:1"), b("one"));
                ops.put(b("other:1"), b("uno"));
            }

            // A read-only user: reads by RPC and one-sided; every write and every admin command is refused.
            try (KvClient reader = as(node, "reader", READER_PW).build();
                 KvClient oneSided = as(node, "reader", READER_PW).getMode(GetMode.ONE_SIDED).build())
            {
                assertArrayEquals(b("one"), reader.get(b("app:1")));
                assertArrayEquals(b("uno"), oneSided.get(b("other:1")));
                final KvException put = refused(() -> reader.put(b("app:1"), b("changed")));
                assertEquals(KvError.FORBIDDEN, put.error(), put.getMessage());
                assertTrue(put.getMessage().contains("user reader (read) may not PUT: it needs the role readwrite"),
                    put.getMessage());
                assertEquals(KvError.FORBIDDEN, refused(() -> reader.delete(b("app:1"))).error());
                forbidden += 2;
                assertArrayEquals(b("one"), reader.get(b("app:1")), "the connection keeps serving its reads");
            }
            final Path readerPw = privateFile("reader.cli", READER_PW);
            for (final String[] command : new String[][] {{"cluster", "status"}, {"cluster", "failover", "--node", "1"},
                {"cluster", "remove-node", "--node", "1"}})
            {
                final List<String> args = new ArrayList<>(List.of(command));
                args.addAll(List.of("-s", node.seed(), "--user", "reader", "--password-file", readerPw.toString()));
                final Run run = rdmakv(args.toArray(String[]::new));
                assertEquals(3, run.code(), String.join(" ", command) + ": " + run.out() + run.err());
                assertTrue(run.err().contains("FORBIDDEN") && run.err().contains("needs the role admin"),
                    run.err());
                forbidden++;
            }

            // A readwrite user limited to "app:": writes and reads inside it only.
            try (KvClient writer = as(node, "writer", WRITER_PW).build())
            {
                writer.put(b("app:2"), b("two"));
                assertArrayEquals(b("two"), writer.get(b("app:2")));
                assertTrue(writer.delete(b("app:2")));
                final KvException outside = refused(() -> writer.put(b("other:2"), b("x")));
                assertEquals(KvError.FORBIDDEN, outside.error());
                assertTrue(outside.getMessage().contains("outside the user's key prefixes"), outside.getMessage());
                assertEquals(KvError.FORBIDDEN, refused(() -> writer.get(b("other:1"))).error());
                forbidden += 2;
            }

            // The admin runs cluster commands: the node answers the command itself, not a refusal.
            final Path opsPw = privateFile("ops.cli", OPS_PW);
            final Run status = rdmakv("cluster", "status", "-s", node.seed(), "--user", "ops", "--password-file",
                opsPw.toString());
            assertEquals(0, status.code(), status.out() + status.err());
            final Run failover = rdmakv("cluster", "failover", "--node", "1", "-s", node.seed(), "--user", "ops",
                "--password-file", opsPw.toString(), "--json");
            assertFalse(failover.err().contains("FORBIDDEN") || failover.out().contains("FORBIDDEN"),
                failover.out() + failover.err());
            assertTrue(failover.out().contains("\"ok\""), "the node's own outcome document: " + failover.out());

            // A wrong password and an unknown user: the same refusal.
            final KvException wrong = assertThrows(KvAuthenticationException.class,
                () -> as(node, "reader", "not-the-password").build());
            final KvException unknown = assertThrows(KvAuthenticationException.class,
                () -> as(node, "nobody", READER_PW).build());
            assertEquals(wrong.getMessage(), unknown.getMessage());
            assertTrue(wrong.getMessage().contains("UNAUTHENTICATED"), wrong.getMessage());
            final Run wrongCli = rdmakv("get", "-s", node.seed(), "--transport", "tcp", "--user", "ops",
                "--password-file", readerPw.toString(), "app:1");
            assertEquals(4, wrongCli.code(), wrongCli.err());

            // The shared secret keeps full access, as before users existed.
            try (KvClient shared = client(node).secret(SECRET).build())
            {
                shared.put(b("other:3"), b("tres"));
                assertArrayEquals(b("one"), shared.get(b("app:1")));
            }
            final Run secretStatus = rdmakv("cluster", "status", "-s", node.seed(), "--secret-file",
                privateFile("secret.cli", SECRET).toString());
            assertEquals(0, secretStatus.code(), secretStatus.err());

            // A user added while the node runs logs in at once (the file is re-read when it changes).
            addUser(users, "late", "read", LATE_PW);
            try (KvClient late = as(node, "late", LATE_PW).build())
            {
                assertArrayEquals(b("tres"), late.get(b("other:3")));
            }

            // RESP: AUTH user password and HELLO 3 AUTH user password, with the user's role.
            final HostAndPort resp = new HostAndPort("127.0.0.1", respPort);
            try (Jedis jedis = new Jedis(resp, DefaultJedisClientConfig.builder().user("writer").password(WRITER_PW)
                .protocol(RedisProtocol.RESP3).socketTimeoutMillis(30_000).build()))
            {
                assertEquals("OK", jedis.set("app:resp", "r"));
                final JedisDataException noperm = assertThrows(JedisDataException.class,
                    () -> jedis.set("other:resp", "r"));
                assertTrue(noperm.getMessage().startsWith("NOPERM"), noperm.getMessage());
            }
            try (Jedis jedis = new Jedis(resp, DefaultJedisClientConfig.builder().socketTimeoutMillis(30_000)
                .build()))
            {
                assertTrue(assertThrows(JedisDataException.class, () -> jedis.get("app:1")).getMessage()
                    .startsWith("NOAUTH"));
                assertTrue(assertThrows(JedisDataException.class, () -> jedis.auth("reader", "wrong")).getMessage()
                    .startsWith("WRONGPASS"));
                assertEquals("OK", jedis.auth("reader", READER_PW));
                assertEquals("one", jedis.get("app:1"));
                assertTrue(assertThrows(JedisDataException.class, () -> jedis.del("app:1")).getMessage()
                    .startsWith("NOPERM"));
            }

            try (KvClient ops = as(node, "ops", OPS_PW).build())
            {
                final Map<String, String> counters = ops.stats().nodes().values().iterator().next();
                assertEquals(Long.toString(forbidden), counters.get("requests.forbidden"), counters.toString());
            }

            node.stop(Duration.ofSeconds(30));
            final String logs = Files.readString(node.stdoutLog()) + Files.readString(node.stderrLog());
            assertTrue(logs.contains("users file " + users + ": 3 users"), logs);
            assertTrue(logs.contains("may not run admin commands"), "the node says why it refused: " + logs);
            for (final String secret : ALL_SECRETS)
            {
                assertFalse(logs.contains(secret), "a password or the secret is in the node's log");
                assertFalse(commandOutput.toString().contains(secret), "a password or the secret in a command's " +
                    "output");
            }
        }
    }

    @Test
    void shouldLogInTheUserAClientCertificateNames() throws Exception
    {
        final Path users = tmp.resolve("users");
        addUser(users, "ops", "admin", OPS_PW);
        addUser(users, "viewer", "read", READER_PW);
        final TestCertificates ca = TestCertificates.authority(tmp.resolve("pki"), "users");
        final TestCertificates.Pem nodeCert = ca.issue("node");
        final TestCertificates.Pem viewer = ca.issue("viewer");
        final TestCertificates.Pem stranger = ca.issue("stranger");
        try (ServerProcess node = ServerProcess.builder(tmp.resolve("tls-node")).name("cert-users-node")
            .setting("transport", "tcp").setting("auth.usersFile", users.toString())
            .setting("tls.certFile", nodeCert.cert().toString()).setting("tls.keyFile", nodeCert.key().toString())
            .setting("tls.caFile", ca.caFile().toString()).setting("tls.clientAuth", "required").start())
        {
            try (KvClient ops = as(node, "ops", OPS_PW).tls(ca.caFile(), viewer.cert(), viewer.key()).build())
            {
                ops.put(b("k"), b("v")); // a password login wins over the certificate's user
            }
            final Supplier<KvClientBuilder> byCertificate = () -> client(node).tls(ca.caFile(), viewer.cert(),
                viewer.key());
            try (KvClient kv = byCertificate.get().build())
            {
                assertArrayEquals(b("v"), kv.get(b("k")));
                final KvException put = refused(() -> kv.put(b("k"), b("w")));
                assertEquals(KvError.FORBIDDEN, put.error());
                assertTrue(put.getMessage().contains("user viewer (read)"), put.getMessage());
            }
            assertThrows(KvAuthenticationException.class, () -> client(node).tls(ca.caFile(), stranger.cert(),
                stranger.key()).build(), "a certificate that names no user is no login");
        }
    }

    @Test
    void shouldWarnWhenANodeRunsOpenOffLoopbackOnly() throws Exception
    {
        try (ServerProcess open = ServerProcess.builder(tmp.resolve("open")).name("open-node")
            .setting("transport", "tcp").setting("host", "0.0.0.0").setting("advertised.host", "127.0.0.1").start();
             ServerProcess local = ServerProcess.builder(tmp.resolve("local")).name("local-node")
            .setting("transport", "tcp").start())
        {
            final KvAuthenticationException unproved = assertThrows(KvAuthenticationException.class,
                () -> client(local).user("ops", "pw".toCharArray()).build());
            assertTrue(unproved.getMessage().contains("without a SCRAM exchange"), unproved.getMessage());
            open.stop(Duration.ofSeconds(30));
            local.stop(Duration.ofSeconds(30));
            final String openLogs = Files.readString(open.stdoutLog()) + Files.readString(open.stderrLog());
            final String localLogs = Files.readString(local.stdoutLog()) + Files.readString(local.stderrLog());
            assertTrue(openLogs.contains("WARN") && openLogs.contains("is bound to 0.0.0.0, which is not a loopback " +
                "address, and requires no credential"), openLogs);
            assertFalse(localLogs.contains("requires no credential"), localLogs);
        }
    }
}

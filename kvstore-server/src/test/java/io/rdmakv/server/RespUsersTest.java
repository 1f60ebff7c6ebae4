package io.rdmakv.server;

import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.protocol.auth.UsersFile;
import io.rdmakv.server.counters.ServerCounter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * RESP's {@code AUTH user password} against the users file: the user's role and key prefixes apply to its commands
 * ({@code -NOPERM}), and a source that failed its logins too often is refused before any PBKDF2 work.
 */
class RespUsersTest
{
    @TempDir
    Path dir;

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0))
        {
            return s.getLocalPort();
        }
    }

    private Path users() throws IOException
    {
        final SecureRandom random = new SecureRandom();
        final Path file = dir.resolve("users");
        UsersFile.write(file, List.of(
            new User("web", Role.READWRITE, List.of("app:"), ScramCredential.create("web-pw".toCharArray(), 4096,
                random)),
            new User("dash", Role.READ, List.of(), ScramCredential.create("dash-pw".toCharArray(), 4096, random))));
        return file;
    }

    private static String err(final Object reply)
    {
        return assertInstanceOf(RespWire.Err.class, reply).text();
    }

    @Test
    @Timeout(60)
    void shouldApplyTheUsersRoleAndPrefixesToItsCommands() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("data"), Map.of("resp.port",
            Integer.toString(freePort()), "auth.usersFile", users().toString())));
             RespWire resp = new RespWire(server.respAddress()))
        {
            assertEquals("NOAUTH Authentication required.", err(resp.call("GET", "app:1")),
                "a users file alone requires AUTH");
            assertEquals("WRONGPASS invalid username-password pair or user is disabled.",
                err(resp.call("AUTH", "web", "wrong")));
            assertEquals("WRONGPASS invalid username-password pair or user is disabled.",
                err(resp.call("AUTH", "nobody", "web-pw")));
            assertEquals("OK", resp.call("AUTH", "web", "web-pw"));
            assertEquals("OK", resp.call("SET", "app:1", "v"));
            assertTrue(err(resp.call("SET", "other", "v")).startsWith("NOPERM user web (readwrite, prefixes [app:])"));
            assertTrue(err(resp.call("MSET", "app:2", "v", "other", "v")).startsWith("NOPERM"));
            assertEquals("v", resp.call("GET", "app:1"));
            try (RespWire dash = new RespWire(server.respAddress()))
            {
                assertInstanceOf(Map.class, dash.call("HELLO", "3", "AUTH", "dash", "dash-pw"));
                assertEquals("v", dash.call("GET", "app:1"));
                assertTrue(err(dash.call("DEL", "app:1")).contains("it needs readwrite"));
            }
            assertEquals(1, server.counters().get(ServerCounter.PUTS), "no refused command was applied");
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseASourceOverItsFailedLoginRateBeforeCheckingTheMatch() throws Exception
    {
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("data"), Map.of("resp.port",
            Integer.toString(freePort()), "auth.usersFile", users().toString(), "auth.failedCredentialBurst", "2",
            "auth.failedCredentialIntervalMs", "3600000")));
             RespWire resp = new RespWire(server.respAddress()))
        {
            assertTrue(err(resp.call("AUTH", "web", "guess-1")).startsWith("WRONGPASS"));
            assertTrue(err(resp.call("AUTH", "web", "guess-2")).startsWith("WRONGPASS"));
            assertEquals("ERR too many failed logins from this address; retry later",
                err(resp.call("AUTH", "web", "web-pw")), "the right password too: nothing is checked");
            assertEquals("NOAUTH Authentication required.", err(resp.call("GET", "app:1")));
        }
    }

    /**
     * A login's PBKDF2 runs off the event loop: while connection A's password check is held (a test gate before the
     * check), connection B on the same loop is served (AUTH by the shared secret, PING, SET, GET), and the commands A
     * pipelined behind its AUTH run once the check ends, in order and as the logged-in user (not NOAUTH). On the loop,
     * B waited for every check of A (tens of milliseconds each; here, for as long as the gate stays shut).
     */
    @Test
    @Timeout(60)
    void shouldServeOtherConnectionsWhileALoginIsCheckedAndRunWhatCameAfterItAsTheUser() throws Exception
    {
        final java.util.concurrent.CountDownLatch gate = new java.util.concurrent.CountDownLatch(1);
        io.rdmakv.server.resp.CredentialChecksHook.gate(gate);
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir.resolve("data"), Map.of("resp.port",
            Integer.toString(freePort()), "auth.usersFile", users().toString(), "auth.secret", "node-secret")));
             RespWire a = new RespWire(server.respAddress());
             RespWire b = new RespWire(server.respAddress()))
        {
            a.send(concat(RespWire.encode("AUTH", "web", "web-pw"), RespWire.encode("SET", "app:1", "from-a"),
                RespWire.encode("GET", "app:1"), RespWire.encode("SET", "other", "x")));
            assertEquals("OK", b.call("AUTH", "node-secret"));
            assertEquals("PONG", b.call("PING"));
            assertEquals("OK", b.call("SET", "app:b", "from-b"));
            assertEquals("from-b", b.call("GET", "app:b"));
            assertEquals(1, server.counters().get(ServerCounter.PUTS), "only B's SET: nothing of A's before its login");
            gate.countDown();
            assertEquals("OK", a.read());
            assertEquals("OK", a.read(), "A's SET ran as web, after the login");
            assertEquals("from-a", a.read());
            assertTrue(err(a.read()).startsWith("NOPERM user web"), "web's prefixes apply to what followed");
        }
        finally
        {
            io.rdmakv.server.resp.CredentialChecksHook.gate(null);
        }
    }

    private static byte[] concat(final byte[]... parts)
    {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        for (final byte[] p : parts)
        {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}

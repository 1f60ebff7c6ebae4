package io.rdmakv.it.e2e;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import io.rdmakv.client.KvStats;
import io.rdmakv.client.internal.AttachedKeys;
import io.rdmakv.it.support.AwaitCount;
import io.rdmakv.it.support.NodeCounters;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.protocol.auth.UsersFile;
import io.rdmakv.transport.CompletionHandler;
import io.rdmakv.transport.RemoteKey;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Revocable one-sided access end to end (issue 33 item 3), a node process with a users file and two users' clients
 * in this JVM. Over verbs (the SoftRoCE guest: {@code -Drdmakv.it.transport=verbs}) each session reads the pool
 * through a memory window of its own: alice's and bob's keys differ, are windows' (the WELCOME carried no pool key),
 * and once alice is removed from the users file the node closes her window and ends her session: a one-sided read
 * with her old key fails, her client cannot log in again, while bob's one-sided GETs go on through his window. The
 * GET p50 through a window and through the pool's key (a second node with {@code auth.memoryWindows=off}) is written
 * to {@code $RDMAKV_RESULTS/memory-windows-node.properties}. Over tcp (the host build) the same revocation ends
 * alice's session; reads are the transport's emulated ones with the pool's key, as before.
 */
@ExtendWith(ProcessJanitor.class)
@Timeout(900)
class MemoryWindowRevocationTest
{
    private static final char[] ALICE_PW = "alice-pw-6d0e1f".toCharArray();
    private static final char[] BOB_PW = "bob-pw-2a9c7b".toCharArray();
    private static final int WARM_UP_GETS = 200;
    /** Alternating blocks of GETs through a window and through the pool's key. */
    private static final int BLOCKS = 8;
    private static final int BLOCK_GETS = 125;

    @TempDir
    Path tmp;

    private final List<AttachedKeys.Attached> attached = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> closing = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception
    {
        AttachedKeys.observe(null);
        for (int i = closing.size() - 1; i >= 0; i--)
        {
            closing.get(i).close();
        }
    }

    private static boolean verbs()
    {
        return "verbs".equals(TestTransport.name());
    }

    private static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static User user(final String name, final char[] password)
    {
        return new User(name, Role.READWRITE, List.of(), ScramCredential.create(password, 4096, new SecureRandom()));
    }

    private KvClient client(final ServerProcess node, final String user, final char[] password)
    {
        final KvClient client = KvClient.builder().server(node.seed()).transport(TestTransport.name())
            .connectTimeout(TestTransport.CONNECT_TIMEOUT).requestTimeout(Duration.ofSeconds(20))
            .getMode(GetMode.ONE_SIDED).user(user, password.clone()).build();
        closing.add(client);
        return client;
    }

    /** The session the last connect attached (the observer sees each client's first data connection). */
    private AttachedKeys.Attached lastAttached()
    {
        assertTrue(!attached.isEmpty(), "no data session attached");
        return attached.get(attached.size() - 1);
    }

    private static long nodeCounter(final KvClient client, final String name)
    {
        final Map<Integer, Map<String, String>> nodes = client.stats().nodes();
        return NodeCounters.get(nodes.values().iterator().next(), name);
    }

    private static long hits(final KvClient client)
    {
        return client.stats().client(ClientCounter.GET_ONE_SIDED_HITS);
    }

    @Test
    void shouldEndARevokedUsersSessionAndWindowWhileAnotherKeepsReadingThroughItsOwn() throws Exception
    {
        final Path users = tmp.resolve("users");
        UsersFile.put(users, user("alice", ALICE_PW));
        UsersFile.put(users, user("bob", BOB_PW));
        final ServerProcess node = ServerProcess.builder(tmp.resolve("node")).name("windows")
            .setting("pool.size", "64MiB").setting("auth.usersFile", users.toString()).start();
        closing.add(node);
        AttachedKeys.observe(attached::add);

        final KvClient alice = client(node, "alice", ALICE_PW);
        alice.put(b("shared"), b("read me one-sided"));
        final AttachedKeys.Attached aliceSession = lastAttached();
        final KvClient bob = client(node, "bob", BOB_PW);
        bob.put(b("bobs"), b("bob's own"));
        final AttachedKeys.Attached bobSession = lastAttached();
        assertNotEquals(aliceSession.endpoint(), bobSession.endpoint());
        final RemoteKey aliceKey = aliceSession.readKey();
        assertNotNull(aliceKey, "alice reads one-sided");

        final long aliceHits = hits(alice);
        assertArrayEquals(b("read me one-sided"), alice.get(b("shared")));
        assertEquals(aliceHits + 1, hits(alice), "alice's GET was one-sided");
        final long bobHits = hits(bob);
        assertArrayEquals(b("read me one-sided"), bob.get(b("shared")));
        assertEquals(bobHits + 1, hits(bob), "bob's GET was one-sided");
        if (verbs())
        {
            assertEquals(RemoteKey.TRANSPORT_VERBS, aliceKey.transportId());
            assertNotEquals(aliceKey.nativeKey(), bobSession.readKey().nativeKey(), "each session its own window");
            assertEquals(2, nodeCounter(bob, "memoryWindows.bound"), "one window per data session");
        }
        else
        {
            assertEquals(0, nodeCounter(bob, "memoryWindows.bound"), "tcp has no windows: behaviour unchanged");
        }

        // Revoke alice: removed from the users file, which the node looks at about once a second.
        assertTrue(UsersFile.remove(users, "alice"));
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (aliceSession.endpoint().isConnected())
        {
            assertTrue(System.nanoTime() < deadline, "the node did not end alice's session within 60 s");
            Thread.sleep(20);
        }
        if (verbs())
        {
            assertEquals(1, nodeCounter(bob, "memoryWindows.revoked"), "alice's window was closed");
            // A one-sided read with alice's old window key, on her old connection: refused or failed, never data.
            assertTrue(readStatus(aliceSession, aliceKey) != TransportStatus.OK, "a revoked key read nothing");
        }
        assertThrows(KvException.class, () -> alice.get(b("shared")), "alice cannot log in again");

        // Bob is untouched: his GETs stay one-sided, through his own window.
        final long bobBefore = hits(bob);
        for (int i = 0; i < 20; i++)
        {
            assertArrayEquals(b("read me one-sided"), bob.get(b("shared")));
        }
        assertEquals(bobBefore + 20, hits(bob), "bob's GETs stayed one-sided");
        assertTrue(bobSession.endpoint().isConnected());

        if (verbs())
        {
            recordGetCost(bob, users);
        }
    }

    /** A 64-byte read of the pool's first bytes with {@code key} on the session's endpoint: its final status. */
    private static TransportStatus readStatus(final AttachedKeys.Attached session, final RemoteKey key)
        throws Exception
    {
        final CompletableFuture<TransportStatus> done = new CompletableFuture<>();
        final UnsafeBuffer destination = new UnsafeBuffer(ByteBuffer.allocateDirect(64));
        final CompletionHandler handler = (status, id) -> done.complete(status);
        final long id = session.endpoint().read(key.baseAddress(), key, 64, destination, 0, handler);
        if (id < 0)
        {
            return TransportStatus.fromSentinel(id);
        }
        return done.get(60, TimeUnit.SECONDS);
    }

    /**
     * GET p50 through bob's window and through the pool's key (a node with {@code auth.memoryWindows=off}, same boot,
     * same key and value), in alternating blocks after a warm-up of each, so neither side is measured colder or
     * under other load than the other: the ratio is what a window costs a GET here.
     */
    private void recordGetCost(final KvClient windowed, final Path users) throws Exception
    {
        final ServerProcess plain = ServerProcess.builder(tmp.resolve("plain")).name("no-windows")
            .setting("pool.size", "64MiB").setting("auth.usersFile", users.toString())
            .setting("auth.memoryWindows", "off").start();
        closing.add(plain);
        final KvClient pooled = client(plain, "bob", BOB_PW);
        pooled.put(b("shared"), b("read me one-sided"));
        assertEquals(0, nodeCounter(pooled, "memoryWindows.bound"), "windows off: the pool's key");
        final RemoteKey poolKey = lastAttached().readKey();
        assertNotNull(poolKey);
        final long[] throughWindow = new long[BLOCKS * BLOCK_GETS];
        final long[] throughPoolKey = new long[BLOCKS * BLOCK_GETS];
        timeGets(windowed, new long[WARM_UP_GETS], 0, WARM_UP_GETS);
        timeGets(pooled, new long[WARM_UP_GETS], 0, WARM_UP_GETS);
        for (int block = 0; block < BLOCKS; block++)
        {
            timeGets(windowed, throughWindow, block * BLOCK_GETS, BLOCK_GETS);
            timeGets(pooled, throughPoolKey, block * BLOCK_GETS, BLOCK_GETS);
        }
        final long windowP50 = p50(throughWindow);
        final long poolKeyP50 = p50(throughPoolKey);
        final String figures = String.format(Locale.ROOT, "get.p50.window.nanos=%d%nget.p50.poolKey.nanos=%d%n" +
            "get.p50.ratio.windowOverPoolKey=%.3f%nget.p90.window.nanos=%d%nget.p90.poolKey.nanos=%d%n" +
            "gets.measured.each=%d%nblocks=%d%n", windowP50, poolKeyP50, (double)windowP50 / poolKeyP50,
            percentile(throughWindow, 0.9), percentile(throughPoolKey, 0.9), BLOCKS * BLOCK_GETS, BLOCKS);
        System.out.print(figures);
        final String results = System.getenv("RDMAKV_RESULTS");
        if (results != null)
        {
            Files.writeString(Path.of(results, "memory-windows-node.properties"), figures, StandardCharsets.UTF_8);
        }
    }

    /** Times {@code count} one-sided GETs of one key into {@code nanos} from {@code at}, each checked to be a hit. */
    private static void timeGets(final KvClient client, final long[] nanos, final int at, final int count)
    {
        final byte[] key = b("shared");
        final byte[] expected = b("read me one-sided");
        final long before = hits(client);
        for (int i = 0; i < count; i++)
        {
            final long start = System.nanoTime();
            final byte[] value = client.get(key);
            nanos[at + i] = System.nanoTime() - start;
            assertArrayEquals(expected, value);
        }
        final KvStats after = client.stats();
        assertEquals(before + count, after.client(ClientCounter.GET_ONE_SIDED_HITS), after.format());
    }

    private static long p50(final long[] nanos)
    {
        return percentile(nanos, 0.5);
    }

    private static long percentile(final long[] nanos, final double p)
    {
        final long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return sorted[(int)Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
    }
}

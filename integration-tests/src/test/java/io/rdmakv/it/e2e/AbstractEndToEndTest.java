package io.rdmakv.it.e2e;

import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvServerException;
import io.rdmakv.client.Versioned;
import io.rdmakv.client.WriteResult;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.SelfCheckingValue;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.it.support.Trees;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The store end to end: a server as a separate process on the TCP transport, the public client in this JVM.
 * One subclass per GET mode (RPC, and one-sided forced over TCP's emulated read), like Netty's one test suite per
 * transport. Each test uses its own key prefix, so the tests share one server process per class.
 */
@ExtendWith(ProcessJanitor.class)
abstract class AbstractEndToEndTest
{
    /** The server's default limits (ServerConfig): the suite checks the edges of exactly these. */
    static final int MAX_KEY_BYTES = 1024;
    static final int MAX_VALUE_BYTES = 1 << 20;

    private static Path dataDir;
    private static ServerProcess server;
    private KvClient client;
    private String prefix;

    /** How the client under test serves GETs. */
    protected abstract GetMode getMode();

    @BeforeAll
    static void startServer() throws IOException
    {
        startServer(Map.of());
    }

    /** Starts the suite's node with {@code settings} beside the suite's own (a subclass's {@code startServer} hides). */
    static void startServer(final Map<String, String> settings) throws IOException
    {
        dataDir = Files.createTempDirectory("rdmakv-e2e-");
        final ServerProcess.Builder node = ServerProcess.builder(dataDir.resolve("data")).name("e2e")
            .setting("pool.size", "64MiB");
        settings.forEach(node::setting);
        server = node.start();
    }

    static ServerProcess server()
    {
        return server;
    }

    @AfterAll
    static void stopServer() throws IOException
    {
        if (server != null)
        {
            server.kill();
        }
        Trees.delete(dataDir);
    }

    @BeforeEach
    void connect(final TestInfo info)
    {
        prefix = getClass().getSimpleName() + "/" + info.getTestMethod().orElseThrow().getName() + "/";
        client = newClient();
    }

    @AfterEach
    void disconnect()
    {
        if (client != null)
        {
            client.close();
        }
    }

    KvClient client()
    {
        return client;
    }

    KvClient newClient()
    {
        return KvClient.builder()
            .server(server.seed())
            .transport(TestTransport.name())
            .connectTimeout(TestTransport.CONNECT_TIMEOUT)
            .getMode(getMode())
            .requestTimeout(Duration.ofSeconds(10))
            .build();
    }

    byte[] key(final String name)
    {
        return (prefix + name).getBytes(StandardCharsets.UTF_8);
    }

    @Test
    @Timeout(60)
    void shouldPutGetOverwriteAndDelete()
    {
        final byte[] key = key("k");
        assertNull(client.get(key), "absent before the first put");
        client.put(key, bytes("v1"));
        assertArrayEquals(bytes("v1"), client.get(key));
        client.put(key, bytes("second value"));
        assertArrayEquals(bytes("second value"), client.get(key));
        assertTrue(client.delete(key), "delete of a present key reports it was there");
        assertNull(client.get(key));
        assertFalse(client.delete(key), "delete of an absent key reports it was not there");
        assertNull(client.get(key));
        client.put(key, bytes("back"));
        assertArrayEquals(bytes("back"), client.get(key), "a deleted key can be written again");
    }

    @Test
    @Timeout(60)
    void shouldReportWhetherDeleteFoundTheKey()
    {
        final byte[] key = key("k");
        assertFalse(client.delete(key), "delete of an absent key reports it was not there");
        client.put(key, bytes("v"));
        assertTrue(client.delete(key), "delete of a present key reports it was there");
    }

    @Test
    @Timeout(60)
    void shouldRoundTripEveryByteValueInKeysAndValues()
    {
        // 256 one-byte keys (0x00..0xFF) after the prefix, each holding its own byte repeated.
        for (int b = 0; b < 256; b++)
        {
            final byte[] value = new byte[b + 1];
            Arrays.fill(value, (byte)b);
            client.put(binaryKey((byte)b), value);
        }
        for (int b = 0; b < 256; b++)
        {
            final byte[] expected = new byte[b + 1];
            Arrays.fill(expected, (byte)b);
            assertArrayEquals(expected, client.get(binaryKey((byte)b)), "key byte " + b);
        }
        // One key and one value holding all 256 byte values (in a scrambled order so no byte sits at a fixed place).
        final byte[] all = new byte[256];
        for (int i = 0; i < 256; i++)
        {
            all[i] = (byte)(i * 167 + 13);
        }
        final byte[] key = concat(key("all-bytes:"), all);
        client.put(key, concat(all, all));
        assertArrayEquals(concat(all, all), client.get(key));
    }

    @Test
    @Timeout(60)
    void shouldStoreAnEmptyValueDistinctFromAbsent()
    {
        final byte[] key = key("empty");
        client.put(key, new byte[0]);
        final byte[] read = client.get(key);
        assertNotNull(read, "an empty value is present, not absent");
        assertEquals(0, read.length);
    }

    @Test
    @Timeout(90)
    void shouldStoreTheLargestAllowedValueAndValuesAcrossSizeClasses()
    {
        final TreeSet<Integer> sizes = new TreeSet<>();
        for (int s = 1; s <= MAX_VALUE_BYTES; s <<= 1)
        {
            sizes.add(s);
            sizes.add(s - 1 == 0 ? 1 : s - 1);
            sizes.add(Math.min(MAX_VALUE_BYTES, s + 1));
            sizes.add(Math.min(MAX_VALUE_BYTES, s + s / 2));
        }
        sizes.add(MAX_VALUE_BYTES);
        for (final int size : sizes)
        {
            client.put(key("size-" + size), valueOfSize(key("size-" + size), size));
        }
        for (final int size : sizes)
        {
            final byte[] key = key("size-" + size);
            final byte[] read = client.get(key);
            assertNotNull(read, "size " + size);
            assertEquals(size, read.length, "size " + size);
            assertArrayEquals(valueOfSize(key, size), read, "size " + size);
        }
    }

    @Test
    @Timeout(60)
    void shouldAnswerMissingKeysAsAbsent()
    {
        for (int i = 0; i < 50; i++)
        {
            assertNull(client.get(key("never-written-" + i)));
        }
        client.put(key("present"), bytes("p"));
        assertNull(client.get(key("presen")), "a prefix of a present key is another key");
        assertNull(client.get(key("present!")), "an extension of a present key is another key");
    }

    @Test
    @Timeout(60)
    void shouldMultiGetPresentAndMissingKeysInOrder()
    {
        final List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 40; i++)
        {
            final byte[] key = key("m" + i);
            keys.add(key);
            if (i % 3 != 0)
            {
                client.put(key, SelfCheckingValue.encode(key, i, 32 + i * 7));
            }
        }
        final List<byte[]> values = client.multiGet(keys);
        assertEquals(keys.size(), values.size());
        for (int i = 0; i < keys.size(); i++)
        {
            if (i % 3 == 0)
            {
                assertNull(values.get(i), "key m" + i + " was never written");
            }
            else
            {
                assertEquals(SelfCheckingValue.Verdict.OK, SelfCheckingValue.check(keys.get(i), values.get(i)), "m" + i);
                assertEquals(i, SelfCheckingValue.sequence(values.get(i)));
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldRejectOversizedKeysAndValuesClearlyAndKeepServing()
    {
        final byte[] largestKey = new byte[MAX_KEY_BYTES];
        Arrays.fill(largestKey, (byte)'k');
        client.put(largestKey, bytes("largest key"));
        assertArrayEquals(bytes("largest key"), client.get(largestKey));

        final byte[] tooLongKey = new byte[MAX_KEY_BYTES + 1];
        final IllegalArgumentException keyError =
            assertThrows(IllegalArgumentException.class, () -> client.put(tooLongKey, bytes("x")));
        assertTrue(keyError.getMessage().contains(Integer.toString(MAX_KEY_BYTES + 1)) ||
            keyError.getMessage().contains(Integer.toString(MAX_KEY_BYTES)), keyError.getMessage());
        assertThrows(IllegalArgumentException.class, () -> client.get(tooLongKey));

        final byte[] tooLargeValue = new byte[MAX_VALUE_BYTES + 1];
        final IllegalArgumentException valueError =
            assertThrows(IllegalArgumentException.class, () -> client.put(key("too-large"), tooLargeValue));
        assertTrue(valueError.getMessage().contains(Integer.toString(MAX_VALUE_BYTES)), valueError.getMessage());

        // Nothing was stored for the refused requests, and the same client and server go on serving.
        assertNull(client.get(key("too-large")));
        client.put(key("after"), bytes("still serving"));
        assertArrayEquals(bytes("still serving"), client.get(key("after")));
        assertTrue(server.isAlive(), server.diagnosis());
    }

    /** A value of exactly {@code size} bytes that depends on the key: self-checking from 32 bytes on. */
    static byte[] valueOfSize(final byte[] key, final int size)
    {
        if (size >= SelfCheckingValue.HEADER_LENGTH)
        {
            return SelfCheckingValue.encode(key, size, size);
        }
        final byte[] v = new byte[size];
        for (int i = 0; i < size; i++)
        {
            v[i] = (byte)(key.length * 31 + i * 7 + size);
        }
        return v;
    }

    private byte[] binaryKey(final byte b)
    {
        return concat(key("bin:"), new byte[] {b});
    }

    /**
     * Versions and conditional writes from the Java client against a node process, over the suite's transport (verbs
     * in the SoftRoCE guest): a GET returns the version written, each condition is refused against the present
     * version and applied against it, and nothing refused is written.
     */
    @Test
    @Timeout(60)
    void shouldVersionEveryWriteAndApplyOnlyTheWritesWhoseConditionHolds()
    {
        final byte[] key = key("cas");
        final WriteResult created = client.putIfAbsent(key, bytes("v1"));
        assertTrue(created.applied() && created.version() > 0, created.toString());
        final Versioned first = client.getWithVersion(key);
        assertArrayEquals(bytes("v1"), first.value());
        assertEquals(created.version(), first.version());

        assertEquals(WriteResult.refused(first.version()), client.putIfAbsent(key, bytes("other")));
        final WriteResult replaced = client.replace(key, first.version(), bytes("v2"));
        assertTrue(replaced.applied() && replaced.version() > first.version(), replaced.toString());
        assertEquals(WriteResult.refused(replaced.version()), client.replace(key, first.version(), bytes("stale")));
        assertEquals(WriteResult.refused(replaced.version()), client.delete(key, first.version()));
        assertArrayEquals(bytes("v2"), client.get(key), "nothing refused was written");

        final long plain = client.put(key, bytes("v3"), Duration.ofHours(1));
        assertTrue(plain > replaced.version(), "a plain PUT issues a newer version too");
        assertTrue(client.delete(key, plain).applied());
        assertNull(client.get(key));
        assertNull(client.getWithVersion(key));
        assertTrue(client.putIfAbsentAsync(key, bytes("again")).join().applied(), "absent again after the delete");
    }

    /** Counters: absent counts from 0, the sum is the value read back, a value that is not an integer is refused. */
    @Test
    @Timeout(60)
    void shouldIncrementAtomicallyAndRefuseAValueThatIsNotAnInteger()
    {
        final byte[] key = key("counter");
        assertEquals(5, client.increment(key, 5));
        assertEquals(3, client.increment(key, -2));
        assertEquals(Long.valueOf(10), client.incrementAsync(key, 7).join());
        assertArrayEquals(bytes("10"), client.get(key), "written back as decimal ASCII");

        final List<java.util.concurrent.CompletableFuture<Long>> inFlight = new ArrayList<>();
        for (int i = 0; i < 200; i++)
        {
            inFlight.add(client.incrementAsync(key, 1));
        }
        final TreeSet<Long> answers = new TreeSet<>();
        inFlight.forEach(f -> answers.add(f.join()));
        assertEquals(200, answers.size(), "200 increments in flight at once: 200 distinct new values");
        assertEquals(210L, answers.last());
        assertArrayEquals(bytes("210"), client.get(key));

        final byte[] text = key("text");
        client.put(text, bytes("not a number"));
        final KvServerException refused = assertThrows(KvServerException.class, () -> client.increment(text, 1));
        assertEquals(KvError.NOT_AN_INTEGER, refused.error());
        assertArrayEquals(bytes("not a number"), client.get(text), "the refused increment wrote nothing");
    }

    /**
     * Expiry: a key with a time to live is served and reports it, {@code persist} removes it, and a key whose expiry
     * is already past is absent to every read (GET in the suite's mode, with its version, the TTL), as in Redis's
     * EXAT with a past instant. No sleep: the past instant is the node's and the client's past alike.
     */
    @Test
    @Timeout(60)
    void shouldServeKeysUntilTheirExpiryAndNeverAfter()
    {
        final byte[] key = key("ttl");
        client.put(key, bytes("cached"), Duration.ofHours(1));
        assertArrayEquals(bytes("cached"), client.get(key));
        final long left = client.ttlMillis(key);
        assertTrue(left > 0 && left <= Duration.ofHours(1).toMillis(), "ttl " + left);
        assertTrue(client.persist(key));
        assertEquals(-1, client.ttlMillis(key), "no expiry after persist");
        assertTrue(client.expire(key, Duration.ofMinutes(5)));
        assertTrue(client.ttlMillis(key) > 0);

        final byte[] gone = key("expired");
        client.put(gone, bytes("old"), java.time.Instant.now().minusSeconds(60));
        assertNull(client.get(gone), "an expired key is never returned");
        assertNull(client.getWithVersion(gone));
        assertEquals(-2, client.ttlMillis(gone), "absent, as Redis's PTTL answers");
        assertFalse(client.expire(gone, Duration.ofMinutes(1)), "expire of an expired key: absent");
        assertTrue(client.putIfAbsent(gone, bytes("new")).applied(), "an expired key is absent to conditions");
        assertArrayEquals(bytes("new"), client.get(gone));
        assertEquals(-1, client.ttlMillis(gone), "the new value carries no expiry");
    }

    /** Ordered range and prefix reads among keys of one hash tag, and a scan of the node that returns every key. */
    @Test
    @Timeout(60)
    void shouldReadRangesAndPrefixesInKeyOrderAndScanEveryKey()
    {
        final String tag = "{" + prefix + "ordered}";
        for (int i = 29; i >= 0; i--)
        {
            client.put(tag + String.format(java.util.Locale.ROOT, "%02d", i), bytes("v" + i));
        }
        final List<io.rdmakv.client.KvEntry> range = client.range(tag + "05", tag + "10", 100);
        assertEquals(List.of("05", "06", "07", "08", "09"), range.stream()
            .map(e -> new String(e.key(), StandardCharsets.UTF_8).substring(tag.length())).toList(),
            "from inclusive, to exclusive, in key order");
        assertArrayEquals(bytes("v5"), range.get(0).value());
        final List<io.rdmakv.client.KvEntry> page = client.prefix(tag, 7);
        assertEquals(7, page.size(), "bounded by the limit");
        assertEquals(tag + "00", new String(page.get(0).key(), StandardCharsets.UTF_8));

        final TreeSet<String> scanned = new TreeSet<>();
        client.scanKeys(tag + "*", 7)
            .forEach(k -> scanned.add(new String(k, StandardCharsets.UTF_8)));
        assertEquals(30, scanned.size(), "every key of the match: " + scanned);
    }

    /**
     * Atomic multi-key writes among keys of one hash tag, over the suite's transport: a batch of PUTs and a DELETE is
     * applied whole (every key read back in the suite's GET mode, the deleted one absent), a large batch crosses the
     * transport's fragment size, and keys of two slots are refused before anything is sent.
     */
    @Test
    @Timeout(60)
    void shouldApplyABatchOfOneHashTagWholeAndRefuseKeysOfTwoSlots()
    {
        final String tag = "{" + prefix + "batch}";
        client.put(bytes(tag + "old"), bytes("to delete"));
        client.writeBatch().put(bytes(tag + "a"), bytes("1")).put(bytes(tag + "b"), bytes("2"))
            .delete(bytes(tag + "old")).execute();
        assertArrayEquals(bytes("1"), client.get(bytes(tag + "a")));
        assertArrayEquals(bytes("2"), client.get(bytes(tag + "b")));
        assertNull(client.get(bytes(tag + "old")));

        final Map<byte[], byte[]> large = new java.util.LinkedHashMap<>();
        final byte[] value = new byte[4096];
        Arrays.fill(value, (byte)'x');
        for (int i = 0; i < 40; i++)
        {
            large.put(bytes(tag + "large-" + i), value); // 160 KiB in one message: several fragments on verbs
        }
        client.putAllAsync(large).join();
        for (final byte[] key : large.keySet())
        {
            assertArrayEquals(value, client.get(key));
        }
        final io.rdmakv.client.KvException refused = assertThrows(io.rdmakv.client.KvException.class, () ->
            client.writeBatch().put(key("x"), bytes("1")).put(key("y-elsewhere"), bytes("2")).execute());
        assertEquals(KvError.CROSSSLOT, refused.error());
    }

    static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static byte[] concat(final byte[] a, final byte[] b)
    {
        final byte[] c = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}

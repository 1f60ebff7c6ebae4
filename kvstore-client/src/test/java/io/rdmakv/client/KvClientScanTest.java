package io.rdmakv.client;

import io.rdmakv.server.KvServer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * Scans and range reads from the client against a node in process, over tcp and over shm (the requests are two-sided
 * on every transport): the whole scan through the async API chained on the progress thread, the stream helper, a
 * range across several pages, and calls refused before anything is sent.
 */
@Timeout(120)
class KvClientScanTest
{
    private static final int KEYS = 2500;

    @TempDir
    Path dir;

    @Test
    void shouldScanAndReadRangesOverTcp() throws Exception
    {
        try (KvServer server = InProcessNode.start(dir, Map.of());
             KvClient client = InProcessNode.client(server).build())
        {
            exercise(client);
        }
    }

    @Test
    void shouldScanAndReadRangesOverShm() throws Exception
    {
        assumeTrue(new io.rdmakv.transport.shm.ShmTransportProvider().isAvailable(), "shm unavailable here");
        try (KvServer server = InProcessNode.start(dir, Map.of("transport", "shm"));
             KvClient client = InProcessNode.client(server).transport("shm").build())
        {
            exercise(client);
        }
    }

    private static void exercise(final KvClient client) throws Exception
    {
        final List<CompletableFuture<Void>> puts = new ArrayList<>();
        for (int i = 0; i < KEYS; i++)
        {
            puts.add(client.putAsync("k" + i, "v" + i));
        }
        for (int i = 0; i < 1500; i++)
        {
            puts.add(client.putAsync(String.format("{t}:%04d", i), "t" + i));
        }
        CompletableFuture.allOf(puts.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);

        // The whole scan chained on the progress thread: each step's future starts the next from its stage.
        final Set<String> async = ConcurrentHashMap.newKeySet(); // stages add on the progress thread
        scanFrom(client, ScanCursor.START, async).get(1, TimeUnit.MINUTES);
        assertEquals(KEYS + 1500, async.size());

        final Set<String> streamed = client.scanKeys("k1*", 7).map(KvClientScanTest::text).collect(Collectors.toSet());
        assertEquals(IntStream.range(0, KEYS).mapToObj(i -> "k" + i).filter(k -> k.startsWith("k1"))
            .collect(Collectors.toSet()), streamed);
        int iterated = 0;
        for (final byte[] ignored : client.keys("{t}:*", 1000))
        {
            iterated++;
        }
        assertEquals(1500, iterated);

        // More entries than one page holds (a node examines at most 1,000 keys a request): in order, no gap.
        final List<KvEntry> range = client.range("{t}:0100", "{t}:1400", 5000);
        assertEquals(1300, range.size());
        for (int i = 0; i < range.size(); i++)
        {
            assertEquals(String.format("{t}:%04d", 100 + i), text(range.get(i).key()));
            assertEquals("t" + (100 + i), text(range.get(i).value()));
        }
        assertEquals(1500, client.prefixAsync("{t}:".getBytes(StandardCharsets.UTF_8), 1_000_000)
            .get(1, TimeUnit.MINUTES).size());
        assertEquals(3, client.prefix("{t}:", 3).size());

        assertThrows(IllegalArgumentException.class, () -> client.scan(ScanCursor.START, (String)null, 0));
        assertThrows(IllegalArgumentException.class, () -> client.range("{a}1", "{b}2", 1));
        final ExecutionException cross = assertThrows(ExecutionException.class,
            () -> client.prefixAsync("no-tag".getBytes(StandardCharsets.UTF_8), 1).get(1, TimeUnit.MINUTES));
        assertInstanceOf(IllegalArgumentException.class, cross.getCause());
        assertTrue(client.scan(ScanCursor.FINISHED, (String)null, 10).keys().isEmpty());
    }

    private static CompletableFuture<Void> scanFrom(final KvClient client, final ScanCursor cursor,
        final Set<String> into)
    {
        return client.scanAsync(cursor, null, 100).thenCompose(result ->
        {
            result.keys().forEach(k -> assertTrue(into.add(text(k)), "once: " + text(k)));
            return result.cursor().isFinished() ? CompletableFuture.completedFuture(null) :
                scanFrom(client, result.cursor(), into);
        });
    }

    private static String text(final byte[] b)
    {
        return new String(b, StandardCharsets.UTF_8);
    }
}

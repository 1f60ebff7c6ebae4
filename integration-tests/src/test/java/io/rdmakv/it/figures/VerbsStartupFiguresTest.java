package io.rdmakv.it.figures;

import io.rdmakv.client.ClientCounter;
import io.rdmakv.client.GetMode;
import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvStats;
import io.rdmakv.it.softroce.SoftRoceGuest;
import io.rdmakv.it.support.NodeCounters;
import io.rdmakv.it.support.ServerProcess;
import io.rdmakv.it.support.TestTransport;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.load.DataSetLoader;
import io.rdmakv.server.load.SyntheticDataSet;
import io.rdmakv.server.pool.PoolSizing;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Issue 5's start-up target on verbs, scaled to the guest: a data directory filled offline with {@value #KEYS} keys of
 * {@value #KEY_BYTES} + {@value #VALUE_BYTES} bytes (128 MiB of values, 130 MiB with the keys; the target's 1 GiB is
 * measured on the host by {@code StartupWithDataTest -Pstartup}, a guest job under emulation has no time for it), a
 * verbs server process started fresh on it with the pool size {@code rdmakv load} recommends and the C1-only JIT of
 * every server process in the guest (C2's compiler threads would compete with start-up for the two emulated CPUs; the
 * host's 1 GiB figure uses the full JIT of {@code bin/rdmakv}), then one-sided GETs of {@value #SAMPLED_KEYS} keys
 * spread over the whole set. Records {@code results/startup.properties}: data size, the READY line's {@code startupMs}
 * (process start to serving), the phases of the server's {@code startup:} line (pool map+pin, warm-up, pool
 * registration) and the line itself. Asserts the mechanism, not the time: READY says every key is in the pool, and
 * every sampled key came back right by one-sided reads with no GET handled by the node.
 */
@Tag(SoftRoceGuest.TAG)
class VerbsStartupFiguresTest
{
    private static final int KEYS = 131_072;
    private static final int KEY_BYTES = 16;
    private static final int VALUE_BYTES = 1024;
    private static final int SAMPLED_KEYS = 1_024;
    /** Phases of the startup line recorded, by their names there, and their keys in the results file. */
    private static final Map<String, String> PHASES = Map.of(
        "pool map+pin", "startup.phase.poolMapPin.ms",
        "warm-up", "startup.phase.warmUp.ms",
        "pool registration", "startup.phase.poolRegistration.ms");

    @Test
    @Timeout(900)
    void shouldServeEveryLoadedKeyOneSidedAfterStartAndRecordTheStartUp(@TempDir final Path tmp) throws IOException
    {
        final SyntheticDataSet set = new SyntheticDataSet(KEYS, KEY_BYTES, VALUE_BYTES);
        final DataSetLoader.Result loaded = DataSetLoader.load(tmp.resolve("data"), set, n -> { });
        final ServerConfig defaults = ServerConfig.defaults();
        final long poolBytes = PoolSizing.poolSizeFor(set.keyCount(), set.keySize(), set.valueSize(),
            defaults.indexAvgEntryBytes(), (int)defaults.poolPartitionSize());

        try (ServerProcess server = ServerProcess.builder(tmp.resolve("data")).name("startup-figures")
            .setting("transport", "verbs").setting("pool.size", (poolBytes >> 20) + "MiB")
            .readyTimeout(Duration.ofSeconds(600)).start())
        {
            final Map<String, String> ready = server.readyFields();
            final String startupLine = startupLine(server);
            final Map<String, String> figures = GuestFigures.figures();
            figures.put("startup.keys", Long.toString(set.keyCount()));
            figures.put("startup.key.bytes", Integer.toString(KEY_BYTES));
            figures.put("startup.value.bytes", Integer.toString(VALUE_BYTES));
            figures.put("startup.data.mib", String.format(Locale.ROOT, "%.1f", set.totalBytes() / (double)(1 << 20)));
            figures.put("startup.pool.mib", Long.toString(poolBytes >> 20));
            figures.put("startup.load.ms", Long.toString(loaded.millis()));
            figures.put("startup.server.jit", "C1 only (-XX:TieredStopAtLevel=1)");
            figures.put("startup.ms", ready.get("startupMs"));
            figures.put("startup.start.ms", Long.toString(number(startupLine, "start (\\d+) ms")));
            PHASES.forEach((phase, key) ->
                figures.put(key, Long.toString(number(startupLine, Pattern.quote(phase) + " (\\d+)"))));
            figures.put("startup.line", startupLine);

            assertEquals("verbs", ready.get("transport"), ready.toString());
            assertEquals("true", ready.get("poolComplete"), "every key fits the pool: " + ready + server.diagnosis());
            assertEquals(Long.toString(set.keyCount()), ready.get("poolKeys"), ready.toString());
            try (KvClient client = KvClient.builder().server(server.seed()).transport("verbs")
                .getMode(GetMode.ONE_SIDED).connectTimeout(TestTransport.CONNECT_TIMEOUT)
                .requestTimeout(Duration.ofSeconds(30)).build())
            {
                // One key in every stride of the set, at a different place in each stride.
                final long stride = set.keyCount() / SAMPLED_KEYS;
                final long[] sampled = new long[SAMPLED_KEYS];
                final List<byte[]> keys = new ArrayList<>(SAMPLED_KEYS);
                for (int s = 0; s < SAMPLED_KEYS; s++)
                {
                    sampled[s] = s * stride + s % stride;
                    keys.add(set.key(sampled[s]));
                }
                final List<byte[]> values = client.multiGet(keys);
                for (int s = 0; s < SAMPLED_KEYS; s++)
                {
                    assertTrue(set.matches(sampled[s], values.get(s)), "key " + sampled[s]);
                }
                final KvStats stats = client.stats();
                figures.put("startup.sampledKeys.oneSidedHits",
                    Long.toString(stats.client(ClientCounter.GET_ONE_SIDED_HITS)));
                GuestFigures.record("startup.properties",
                    "a verbs node's start-up with data in RocksDB (SoftRoCE guest, emulation)", figures);

                assertEquals(SAMPLED_KEYS, stats.client(ClientCounter.GET_ONE_SIDED_HITS), stats.format());
                assertEquals(0, stats.client(ClientCounter.GET_FALLBACKS), stats.format());
                assertEquals(0, stats.client(ClientCounter.GET_MISS_LOOKUPS), stats.format());
                assertEquals(0, NodeCounters.get(stats.nodes().values().iterator().next(), "gets.rpc"),
                    "the node answered no GET");
            }
        }
    }

    /** The server's "startup:" log line (slf4j-simple logs to standard error). */
    private static String startupLine(final ServerProcess server) throws IOException
    {
        return Files.readAllLines(server.stderrLog()).stream().filter(l -> l.contains("startup: "))
            .map(l -> l.substring(l.indexOf("startup: ") + "startup: ".length())).findFirst()
            .orElseThrow(() -> new AssertionError("no startup line" + server.diagnosis()));
    }

    private static long number(final String line, final String regex)
    {
        final Matcher m = Pattern.compile(regex).matcher(line);
        if (!m.find())
        {
            throw new AssertionError("no '" + regex + "' in the startup line: " + line);
        }
        return Long.parseLong(m.group(1));
    }
}

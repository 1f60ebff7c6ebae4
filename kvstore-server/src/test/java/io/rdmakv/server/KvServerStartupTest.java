package io.rdmakv.server;

import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.server.load.DataSetLoader;
import io.rdmakv.server.load.SyntheticDataSet;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.transport.RemoteKey;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Start-up with data already in RocksDB: what the node reports about it, and start-up failures. */
class KvServerStartupTest
{
    @TempDir
    Path dir;

    @Test
    @Timeout(60)
    void shouldReportWhatItServesOneSidedAndTheTimeOfEveryPhase() throws Exception
    {
        final SyntheticDataSet set = new SyntheticDataSet(3_000, 16, 500);
        DataSetLoader.load(dir, set, n -> { });
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of()));
             RawClient client = RawClient.attached(server))
        {
            final StartupReport report = server.startupReport();
            assertTrue(report.complete());
            assertEquals(3_000, report.poolKeys());
            assertEquals(3_000, report.keysInStore());
            assertTrue(report.keysInStoreExact());
            assertEquals(set.totalBytes(), report.poolBytes());
            final List<String> phases = report.phases().stream().map(StartupReport.Phase::name).toList();
            assertEquals(List.of("transport selection", "pool map+pin", "wait for RocksDB and transport",
                "RocksDB open", "transport open", "index init", "warm-up", "RocksDB scan",
                "pool writes (copy, CRC, index slots)", "pool registration", "listen"), phases);
            assertTrue(report.phases().stream().allMatch(p -> p.millis() >= 0), report.toString());
            long serial = 0;
            for (final StartupReport.Phase p : report.phases())
            {
                serial += p.overlapped() ? 0 : p.millis();
            }
            assertTrue(serial <= report.startMillis() + report.phases().size(),
                "phases not marked overlapped follow each other: " + report);
            assertTrue(report.sinceProcessStartMillis() == -1 ||
                report.sinceProcessStartMillis() >= report.startMillis(), report.toString());
            final String line = report.format();
            assertTrue(line.startsWith("serving one-sided GETs for every key: 3000 keys, 1.5 MiB"), line);
            assertTrue(line.contains(" || RocksDB open "), line);

            // What the report claims: every key is in the pool, read one-sided through the layout.
            final Welcome welcome = server.welcome();
            final RemoteKey rkey = RemoteKey.unpack(welcome.remoteKey());
            assertTrue(client.poolComplete(rkey, welcome.poolHeaderAddress()));
            for (int i = 0; i < 3_000; i += 97)
            {
                final byte[] value = client.oneSidedGet(rkey, welcome.poolHeaderAddress(), set.key(i));
                assertTrue(set.matches(i, value), "key " + i);
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldSayWhenThePoolDoesNotHoldEveryKey()
    {
        final SyntheticDataSet set = new SyntheticDataSet(8_000, 16, 1000);
        DataSetLoader.load(dir, set, n -> { });
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of("pool.size", "2MiB"))))
        {
            final StartupReport report = server.startupReport();
            assertFalse(report.complete());
            assertFalse(server.warmUp().scannedAll(), "the scan stopped once the pool was full");
            assertTrue(report.poolKeys() > 0 && report.poolKeys() < 4_000, report.toString());
            assertFalse(report.keysInStoreExact());
            assertTrue(report.keysInStore() > 4_000 && report.keysInStore() < 12_000,
                "RocksDB's estimate of the 8,000 keys: " + report);
            assertTrue(report.format().startsWith("serving one-sided GETs for " + report.poolKeys() +
                " keys of about " + report.keysInStore() + " (pool INCOMPLETE"), report.format());
        }
    }

    @Test
    @Timeout(60)
    void shouldFailCleanlyWhenRocksDbCannotOpenWhileThePoolIsBeingPrepared()
    {
        try (RocksStore holder = RocksStore.open(dir, Durability.DEFAULT))
        {
            final ServerStartException ex = assertThrows(ServerStartException.class,
                () -> KvServer.start(KvServerTest.testConfig(holder.directory(), Map.of())));
            assertTrue(ex.getMessage().contains("cannot open RocksDB"), ex.getMessage());
        }
        // Everything the failed start opened (pool, transport, registration) was closed: a new start works.
        try (KvServer server = KvServer.start(KvServerTest.testConfig(dir, Map.of())))
        {
            assertTrue(server.startupReport().complete());
            assertEquals(0, server.startupReport().poolKeys());
        }
    }
}

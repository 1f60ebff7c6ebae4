package io.rdmakv.server.config;

import io.rdmakv.server.admission.AdmissionSettings;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.WalRecovery;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ServerConfigTest
{
    @TempDir
    Path dir;

    @Test
    void shouldRunOutOfTheBoxWithDocumentedDefaults()
    {
        final ServerConfig c = ServerConfig.defaults();
        assertEquals(Path.of("./data"), c.dataDir());
        assertEquals(64L << 20, c.poolSize());
        assertEquals("auto", c.transport());
        assertEquals(7400, c.controlPort());
        assertEquals(7401, c.dataPort());
        assertEquals(1024, c.maxKeyBytes());
        assertEquals(1 << 20, c.maxValueBytes());
        assertEquals(1024 + (1 << 20) + ServerConfig.MESSAGE_OVERHEAD_BYTES, c.maxMessageBytes());
        assertEquals(PinMode.AUTO, c.pinMode());
        assertEquals(224, c.indexAvgEntryBytes());
        assertEquals(PinMode.BEST_EFFORT, c.pinMode().resolve("tcp"));
        assertEquals(PinMode.REQUIRED, c.pinMode().resolve("verbs"));
        assertEquals(Durability.DEFAULT, c.durability());
        assertEquals(8L << 20, c.writeBufferSize());
        assertNull(c.secret());
        assertFalse(c.security().requiresCredential());
        assertEquals(1, c.clusterNodes().size());
        assertEquals(0, c.clusterNodes().get(0).firstSlot());
        assertEquals(ClusterNode.HASH_SLOT_COUNT - 1, c.clusterNodes().get(0).lastSlot());
    }

    @Test
    void shouldLetFlagsOverrideTheFile() throws Exception
    {
        final Path file = dir.resolve("server.properties");
        Files.writeString(file, "pool.size=128MiB\ndata.port=9000\ndurability=fsync\nauth.secret=s3cret\ntcp.nativeEpoll=false\n");
        final ServerConfig c = ServerConfig.load(file, Map.of("data.port", "9001", "host", "127.0.0.1"));
        assertEquals(128L << 20, c.poolSize());
        assertEquals(9001, c.dataPort());
        assertEquals(Durability.FSYNC, c.durability());
        assertArrayEquals("s3cret".getBytes(), c.secret());
        assertEquals("127.0.0.1", c.advertisedHost());
        assertEquals(Map.of("tcp.nativeEpoll", "false"), c.transportProperties());
        assertFalse(c.toString().contains("s3cret"), "the secret is never printed");

        final ServerConfig d = c.with(Map.of("control.port", "0", "data.port", "0"));
        assertEquals(0, d.dataPort());
        assertEquals(128L << 20, d.poolSize());
        assertEquals(0, d.clusterNodes().get(0).controlPort(), "derived single-node map follows the new port");
    }

    @Test
    void shouldRejectBadValuesWithMessagesNamingTheSetting()
    {
        assertMessage("pool.size", Map.of("pool.size", "lots"));
        assertMessage("pool.size", Map.of("pool.size", "1000"));
        assertMessage("pool.size must be a multiple of 4096", Map.of("pool.size", "1048577"));
        assertMessage("data.port", Map.of("data.port", "70000"));
        assertMessage("control.port and data.port must differ", Map.of("data.port", "7400"));
        assertMessage("limits.maxKeyBytes", Map.of("limits.maxKeyBytes", "4096"));
        assertMessage("limits.maxValueBytes", Map.of("limits.maxValueBytes", "3000000"));
        assertMessage("durability", Map.of("durability", "sometimes"));
        assertMessage("pool.pin", Map.of("pool.pin", "glue"));
        assertMessage("unknown setting 'pool.sise'", Map.of("pool.sise", "1"));
        assertMessage("cluster.nodes does not contain this node", Map.of("cluster.nodes", "2@h:7400:0-16383"));
        assertThrows(ConfigException.class, () -> ServerConfig.load(dir.resolve("missing.properties"), Map.of()));
    }

    @Test
    void shouldPassShmPropertiesToTheTransportsLikeTcpAndVerbsOnes() throws Exception
    {
        final Path file = dir.resolve("shm.properties");
        Files.writeString(file, "shm.spinMicros=0\ntcp.spinMicros=5\n");
        final ServerConfig c = ServerConfig.load(file, Map.of());
        assertEquals(Map.of("shm.spinMicros", "0", "tcp.spinMicros", "5"), c.transportProperties());
        assertEquals(Map.of("shm.idleWaitMs", "5"),
            ServerConfig.builder().transportProperty("shm.idleWaitMs", "5").build().transportProperties());
    }

    @Test
    void shouldReadTheTransportsCreditsPerEndpointAsATypedSettingNotAsAProperty() throws Exception
    {
        assertEquals(ServerConfig.DEFAULT_MAX_INFLIGHT_PER_ENDPOINT, ServerConfig.defaults().maxInflightPerEndpoint());
        assertEquals(String.valueOf(ServerConfig.DEFAULT_MAX_INFLIGHT_PER_ENDPOINT),
            ServerConfig.KNOWN.get("transport.maxInflightPerEndpoint"));

        final Path file = dir.resolve("server.properties");
        Files.writeString(file, "transport.maxInflightPerEndpoint=512\ntcp.spinMicros=5\n");
        final ServerConfig c = ServerConfig.load(file, Map.of());
        assertEquals(512, c.maxInflightPerEndpoint());
        assertEquals(Map.of("tcp.spinMicros", "5"), c.transportProperties(), "typed, so not passed as a property");
        assertEquals(1, c.with(Map.of("transport.maxInflightPerEndpoint", "1")).maxInflightPerEndpoint());
        assertEquals(512, c.with(Map.of("data.port", "0")).maxInflightPerEndpoint(), "kept by with()");
        assertEquals(ServerConfig.MAX_INFLIGHT_PER_ENDPOINT, ServerConfig.from(new Properties(),
            Map.of("transport.maxInflightPerEndpoint", "16384")).maxInflightPerEndpoint());
    }

    @Test
    void shouldReadTheMemtableSizeAndRejectOneOutsideOneMiBToOneGiB()
    {
        assertEquals(64L << 20, ServerConfig.from(new Properties(), Map.of("store.writeBufferSize", "64MiB"))
            .writeBufferSize());
        assertMessage("store.writeBufferSize must be between 1048576 and 1073741824 bytes: 512KiB",
            Map.of("store.writeBufferSize", "512KiB"));
        assertMessage("store.writeBufferSize must be between 1048576 and 1073741824 bytes: 2GiB",
            Map.of("store.writeBufferSize", "2GiB"));
        assertMessage("store.writeBufferSize must be a size like 65536, 64MiB or 1GiB: 'big'",
            Map.of("store.writeBufferSize", "big"));
    }

    @Test
    void shouldKeepADiskReserveOfAtLeastTheMemtableUnlessOff()
    {
        assertEquals(64L << 20, ServerConfig.from(new Properties(), Map.of()).diskReserve());
        assertEquals(0, ServerConfig.from(new Properties(), Map.of("store.diskReserve", "0")).diskReserve());
        assertEquals(32L << 20, ServerConfig.from(new Properties(), Map.of("store.diskReserve", "4MiB",
            "store.writeBufferSize", "32MiB")).diskReserve(), "raised to the memtable: RocksDB's resume flushes it");
        assertMessage("store.diskReserve must be a size like 65536, 64MiB or 1GiB: 'lots'",
            Map.of("store.diskReserve", "lots"));
    }

    @Test
    void shouldReadTheAckPollSleepingAtOnceByDefaultAndRejectOneOutsideZeroToTenMilliseconds()
    {
        assertEquals(0, ServerConfig.from(new Properties(), Map.of()).replicationAckPollMicros());
        assertEquals(200, ServerConfig.from(new Properties(), Map.of("replication.ackPollMicros", "200"))
            .replicationAckPollMicros());
        assertEquals(150, ServerConfig.builder().replicationAckPollMicros(150).build().replicationAckPollMicros());
        final ConfigException tooLong = assertThrows(ConfigException.class,
            () -> ServerConfig.from(new Properties(), Map.of("replication.ackPollMicros", "10001")));
        assertTrue(tooLong.getMessage().contains("replication.ackPollMicros"), tooLong.getMessage());
    }

    @Test
    void shouldReadTheWalRecoveryModeRefusingDamageByDefault()
    {
        assertEquals(WalRecovery.TOLERATE_TAIL, ServerConfig.defaults().walRecovery());
        assertEquals(WalRecovery.POINT_IN_TIME, ServerConfig.from(new Properties(),
            Map.of("store.walRecovery", "Point_In_Time")).walRecovery());
        assertEquals(WalRecovery.SKIP_CORRUPTED, ServerConfig.from(new Properties(),
            Map.of("store.walRecovery", "skip-corrupted")).walRecovery());
        assertMessage("store.walRecovery: invalid value 'lenient' (unknown WAL recovery 'lenient' (expected strict, " +
            "tolerate-tail, point-in-time or skip-corrupted))", Map.of("store.walRecovery", "lenient"));
    }

    @Test
    void shouldServeShmWhereItIsFreeByDefaultAndKeepTrueAndFalse()
    {
        assertEquals(ShmServing.AUTO, ServerConfig.defaults().serveShm());
        assertEquals("auto", ServerConfig.KNOWN.get("transport.serveShm"));
        assertEquals(ShmServing.ON, ServerConfig.from(new Properties(), Map.of("transport.serveShm", "true"))
            .serveShm());
        assertEquals(ShmServing.OFF, ServerConfig.from(new Properties(), Map.of("transport.serveShm", " False "))
            .serveShm());
        assertEquals(ShmServing.AUTO, ServerConfig.from(new Properties(), Map.of("transport.serveShm", "AUTO"))
            .serveShm());
        assertMessage("transport.serveShm: invalid value 'yes' (must be auto, true or false)",
            Map.of("transport.serveShm", "yes"));
    }

    @Test
    void shouldRejectCreditsPerEndpointOutsideOneTo16384()
    {
        assertMessage("transport.maxInflightPerEndpoint must be between 1 and 16384: 0",
            Map.of("transport.maxInflightPerEndpoint", "0"));
        assertMessage("transport.maxInflightPerEndpoint must be between 1 and 16384: 16385",
            Map.of("transport.maxInflightPerEndpoint", "16385"));
        assertMessage("transport.maxInflightPerEndpoint must be a whole number: 'many'",
            Map.of("transport.maxInflightPerEndpoint", "many"));
        assertMessage("unknown setting 'transport.maxInflight'", Map.of("transport.maxInflight", "8"));
    }

    @Test
    void shouldParseAndValidateClusterMaps()
    {
        final List<ClusterNode> nodes = ClusterNode.parseList("1@10.0.0.1:7400:0-8191, 2@node-b:7500:8192-16383");
        assertEquals(new ClusterNode(1, "10.0.0.1", 7400, 0, 8191), nodes.get(0));
        assertEquals(new ClusterNode(2, "node-b", 7500, 8192, 16383), nodes.get(1));
        final ServerConfig c = ServerConfig.from(new Properties(), Map.of("node.id", "2",
            "cluster.nodes", "1@10.0.0.1:7400:0-8191,2@node-b:7500:8192-16383"));
        assertEquals(2, c.clusterNodes().size());

        for (final String bad : List.of("x@h:1:0-1", "1@h:0:0-1", "1@h:1:5-2", "1@h:1:0-16384", "1h:1:0-1", "1@h:1:0"))
        {
            assertThrows(ConfigException.class, () -> ClusterNode.parseList(bad), bad);
        }
        final ConfigException overlap = assertThrows(ConfigException.class,
            () -> ClusterNode.parseList("1@a:1:0-100,2@b:1:100-200"));
        assertTrue(overlap.getMessage().contains("overlap"));
        assertThrows(ConfigException.class, () -> ClusterNode.parseList("1@a:1:0-100,1@b:1:101-200"));
    }

    @Test
    void shouldReadTheAdmissionSettingsWithTheirDefaults()
    {
        final AdmissionSettings defaults = ServerConfig.defaults().admission();
        assertEquals(new AdmissionSettings(1024, 64, Duration.ofSeconds(5), 10, Duration.ofSeconds(1)), defaults);
        final AdmissionSettings set = ServerConfig.from(new Properties(), Map.of("limits.maxUnauthenticated", "16",
            "limits.maxUnauthenticatedPerSource", "2", "auth.handshakeTimeoutMs", "750",
            "auth.failedCredentialBurst", "3", "auth.failedCredentialIntervalMs", "2000")).admission();
        assertEquals(new AdmissionSettings(16, 2, Duration.ofMillis(750), 3, Duration.ofSeconds(2)), set);
        assertMessage("limits.maxUnauthenticated", Map.of("limits.maxUnauthenticated", "0"));
        assertMessage("limits.maxUnauthenticatedPerSource", Map.of("limits.maxUnauthenticatedPerSource", "-1"));
        assertMessage("auth.handshakeTimeoutMs", Map.of("auth.handshakeTimeoutMs", "soon"));
        assertMessage("auth.failedCredentialIntervalMs", Map.of("auth.failedCredentialIntervalMs", "0"));
    }

    @Test
    void shouldParseHumanSizes()
    {
        assertEquals(65536, ServerConfig.parseSize("65536"));
        assertEquals(64 << 10, ServerConfig.parseSize("64k"));
        assertEquals(64L << 20, ServerConfig.parseSize("64MiB"));
        assertEquals(1L << 30, ServerConfig.parseSize("1 GiB"));
        assertEquals(2_000_000, ServerConfig.parseSize("2mb"), "MB is decimal");
        assertThrows(NumberFormatException.class, () -> ServerConfig.parseSize("99999999999999999t"));
    }

    @Test
    void shouldReadBinaryAndDecimalUnitsWithTheirTrueMeaningsAndExactFractions()
    {
        assertEquals(1_610_612_736L, ServerConfig.parseSize("1.5GiB"));
        assertEquals(1_500_000_000L, ServerConfig.parseSize("1.5GB"));
        assertEquals(64_000_000L, ServerConfig.parseSize("64MB"));
        assertEquals(64L << 20, ServerConfig.parseSize("64MiB"));
        assertEquals(1000, ServerConfig.parseSize("1KB"));
        assertEquals(1024, ServerConfig.parseSize("1kib"));
        assertEquals(1536, ServerConfig.parseSize("1.5KiB"));
        assertEquals(2L << 40, ServerConfig.parseSize("2TiB"));
        assertEquals(3_000_000_000_000L, ServerConfig.parseSize("3TB"));
        assertEquals(64, ServerConfig.parseSize("64B"));
        assertEquals(64L << 20, ServerConfig.parseSize("64m"), "a bare letter is binary, as -Xmx reads it");
        final NumberFormatException fraction = assertThrows(NumberFormatException.class,
            () -> ServerConfig.parseSize("0.3KiB"));
        assertTrue(fraction.getMessage().contains("not a whole number of bytes (307.2)"), fraction.getMessage());
        for (final String bad : List.of("", "MiB", "-1MiB", "1.5", "1.5.2GiB", "12 parsecs", "1e3"))
        {
            assertThrows(NumberFormatException.class, () -> ServerConfig.parseSize(bad), bad);
        }
        assertEquals(1_610_612_736L, ServerConfig.from(new Properties(), Map.of("pool.size", "1.5GiB")).poolSize());
        assertMessage("pool.size must be a multiple of 4096", Map.of("pool.size", "1.5GB"));
        assertMessage("not a whole number of bytes", Map.of("pool.size", "0.3KiB"));
    }

    private static void assertMessage(final String expected, final Map<String, String> overrides)
    {
        final ConfigException ex = assertThrows(ConfigException.class, () -> ServerConfig.from(new Properties(), overrides));
        assertTrue(ex.getMessage().contains(expected), "message '" + ex.getMessage() + "' should contain '" + expected + "'");
    }
}

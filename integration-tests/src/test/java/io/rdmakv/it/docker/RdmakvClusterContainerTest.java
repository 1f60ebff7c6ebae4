package io.rdmakv.it.docker;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvException;
import io.rdmakv.testcontainers.RdmakvCluster;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A replicated 3-node cluster of the server image: the nodes elect their coordination group over their Docker network
 * and lay the slots out; keys written through a client seeded with every node are read back through a client that
 * knows only the third node (redirects follow the map, whose addresses the nodes advertise on their network). The
 * cluster is the Testcontainers module's cluster variant, or, when {@code rdmakv.it.clusterSeeds} names three
 * running nodes, that cluster: the SoftRoCE guest's container step passes docker/docker-compose.yml's (its advertised
 * addresses, reached from the Docker host) and so starts one cluster, not two, under emulation; the module's variant
 * runs wherever no seeds are given. Skips, the reason printed, without an engine.
 */
@Tag(DockerEngine.TAG)
class RdmakvClusterContainerTest
{
    private static final int KEYS = 64;
    private static String image;

    @BeforeAll
    static void requireEngine()
    {
        image = DockerEngine.requireImage(RdmakvClusterContainerTest.class);
    }

    @Test
    @Timeout(1800)
    void shouldServeEveryKeyFromAnyNodeOfAThreeNodeCluster() throws Exception
    {
        final String given = System.getProperty("rdmakv.it.clusterSeeds", "").strip();
        if (!given.isEmpty())
        {
            final List<String> seeds = List.of(given.split(","));
            assertEquals(3, seeds.size(), "rdmakv.it.clusterSeeds names the three nodes: " + given);
            System.out.println("the cluster at " + seeds + " (rdmakv.it.clusterSeeds)");
            writeThroughAllAndReadThroughTheThird(seeds, seeds.get(2));
            return;
        }
        try (RdmakvCluster cluster = new RdmakvCluster(image, 3).withEachNode(n -> n.withPoolSize("16MiB")
            .withJavaOptions("-Xmx256m " + DockerEngine.containerJavaOptions())
            .withStartupTimeout(DockerEngine.startupTimeout())
            .withSetting("auth.handshakeTimeoutMs", DockerEngine.handshakeTimeoutMs())
            // The compose cluster's coordination timeouts under the guest's emulation (guest-containers.sh): the
            // defaults (lease 600 ms, elections after 200-400 ms) are for real hosts, and this test kills nothing.
            .withSetting("cluster.electionTimeoutMs", "5000").withSetting("cluster.leaseMs", "60000")))
        {
            cluster.start();
            assertEquals(3, cluster.getSeedAddresses().size());
            writeThroughAllAndReadThroughTheThird(cluster.getSeedAddresses(),
                cluster.getNodes().get(2).getSeedAddress());
        }
    }

    private static void writeThroughAllAndReadThroughTheThird(final List<String> seeds, final String third)
        throws Exception
    {
        try (KvClient writer = client(seeds))
        {
            putOnceLaidOut(writer, key(0), value(0));
            for (int i = 1; i < KEYS; i++)
            {
                writer.put(key(i), value(i));
            }
        }
        try (KvClient reader = client(List.of(third)))
        {
            for (int i = 0; i < KEYS; i++)
            {
                assertArrayEquals(value(i), reader.get(key(i)), "key " + i);
            }
        }
    }

    /**
     * The voters lay the slots out once all three joined: the first PUT is retried until then, for as long as a node
     * may take to start ({@link DockerEngine#startupTimeout()}: under emulation the joins committed 6 min after the
     * nodes were READY and 2.4 min into this wait, 2026-12-02).
     */
    private static void putOnceLaidOut(final KvClient client, final byte[] key, final byte[] value) throws Exception
    {
        final long deadline = System.nanoTime() + DockerEngine.startupTimeout().toNanos();
        while (true)
        {
            try
            {
                client.put(key, value);
                return;
            }
            catch (final KvException notYet)
            {
                if (System.nanoTime() > deadline)
                {
                    throw notYet;
                }
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
    }

    private static KvClient client(final List<String> seeds)
    {
        return KvClient.builder().servers(seeds).transport("tcp").connectTimeout(Duration.ofSeconds(60))
            .requestTimeout(Duration.ofSeconds(60)).build();
    }

    private static byte[] key(final int i)
    {
        return ("key-" + i).getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] value(final int i)
    {
        return ("value-" + i + "-from-the-cluster").getBytes(StandardCharsets.UTF_8);
    }
}

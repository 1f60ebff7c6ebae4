package io.rdmakv.testcontainers;

import org.testcontainers.containers.Network;
import org.testcontainers.lifecycle.Startable;
import org.testcontainers.lifecycle.Startables;
import org.testcontainers.utility.DockerImageName;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * A replicated rdmakv cluster of {@code size} nodes in containers on their own Docker network, for tests: the nodes
 * are the voters of the coordination group (Apache Ratis), reach each other by the aliases {@code node1..nodeN},
 * and advertise their addresses on that network ({@link RdmakvContainer.Advertise#CONTAINER_ADDRESS}), so peers and
 * clients on the Docker host (Linux) or on the network reach every node the cluster map names. Each slot range gets
 * {@code replicas} backups. Started in parallel; ready when every node printed READY.
 * <pre>
 *   try (RdmakvCluster cluster = new RdmakvCluster("rdmakv:dev", 3))
 *   {
 *       cluster.start();
 *       KvClient client = KvClient.builder().servers(cluster.getSeedAddresses()).build();
 *   }
 * </pre>
 */
public final class RdmakvCluster implements Startable
{
    private final Network network = Network.newNetwork();
    private final List<RdmakvContainer> nodes = new ArrayList<>();

    /**
     * A cluster of {@code size} nodes with one backup per range (none for a single node).
     *
     * @param image the server image.
     * @param size  the number of nodes (voters), at least 1.
     */
    public RdmakvCluster(final String image, final int size)
    {
        this(DockerImageName.parse(image), size, Math.min(1, size - 1));
    }

    /**
     * A cluster of {@code size} nodes.
     *
     * @param image    the server image.
     * @param size     the number of nodes (voters), at least 1.
     * @param replicas backups per slot range, less than {@code size}.
     */
    public RdmakvCluster(final DockerImageName image, final int size, final int replicas)
    {
        if (size < 1 || replicas < 0 || replicas >= size)
        {
            throw new IllegalArgumentException("need size >= 1 and 0 <= replicas < size, got " + size + " and " + replicas);
        }
        final String voters = IntStream.rangeClosed(1, size)
            .mapToObj(n -> n + "@node" + n + ":" + RdmakvContainer.RAFT_PORT).collect(Collectors.joining(","));
        for (int n = 1; n <= size; n++)
        {
            nodes.add(new RdmakvContainer(image)
                .withNetwork(network)
                .withNetworkAliases("node" + n)
                .withAdvertise(RdmakvContainer.Advertise.CONTAINER_ADDRESS)
                .withSetting("node.id", String.valueOf(n))
                .withSetting("cluster.voters", voters)
                .withSetting("cluster.replicas", String.valueOf(replicas)));
        }
    }

    /**
     * Applies a setting or option to every node (secret, transport, pool size, any setting) before the start.
     *
     * @param change what to do to each node.
     * @return this cluster.
     */
    public RdmakvCluster withEachNode(final Consumer<RdmakvContainer> change)
    {
        nodes.forEach(Objects.requireNonNull(change, "change"));
        return this;
    }

    /**
     * The nodes, node 1 first.
     *
     * @return the containers.
     */
    public List<RdmakvContainer> getNodes()
    {
        return List.copyOf(nodes);
    }

    /**
     * Every node's control address, for a client's seed list.
     *
     * @return {@code host:port} of each node.
     */
    public List<String> getSeedAddresses()
    {
        return nodes.stream().map(RdmakvContainer::getSeedAddress).toList();
    }

    /**
     * The first node's control address.
     *
     * @return {@code host:port}.
     */
    public String getSeedAddress()
    {
        return nodes.get(0).getSeedAddress();
    }

    @Override
    public void start()
    {
        Startables.deepStart(nodes).join();
    }

    @Override
    public void stop()
    {
        nodes.forEach(RdmakvContainer::stop);
        network.close();
    }
}

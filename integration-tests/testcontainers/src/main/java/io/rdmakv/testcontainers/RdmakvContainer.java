package io.rdmakv.testcontainers;

import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.Device;
import com.github.dockerjava.api.model.Ulimit;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;

/**
 * One rdmakv node in a container of the server image ({@code docker/Dockerfile}), for tests, as
 * {@code RedisContainer} is for Redis:
 * <pre>
 *   try (RdmakvContainer node = new RdmakvContainer("rdmakv:dev").withSecret("s3cret"))
 *   {
 *       node.start();
 *       KvClient client = KvClient.builder().server(node.getSeedAddress()).secret("s3cret").build();
 *   }
 * </pre>
 * A node tells clients in its handshake where to reach its data port, so a container behind Docker's port mapping
 * must advertise the mapped address: the container starts its entrypoint waiting, and once Docker has mapped the
 * ports the node's settings are written into it with {@code advertised.host} = {@link #getHost()} and the two
 * advertised ports = the mapped ones ({@link Advertise#MAPPED_PORTS}, the default). On a shared {@code Network}
 * (the cluster) the node advertises its own address on that network instead ({@link Advertise#CONTAINER_ADDRESS}),
 * which the other nodes and a client on the Docker host reach. Ready when the node prints its {@code READY} line.
 * The memlock limit is lifted (the pool is pinned with mlock); nothing else is granted unless asked for.
 */
public class RdmakvContainer extends GenericContainer<RdmakvContainer>
{
    /** The control port (handshake, cluster map): what clients dial. */
    public static final int CONTROL_PORT = 7400;
    /** The data port (requests, the TCP transport's emulated one-sided reads). */
    public static final int DATA_PORT = 7401;
    /** The cluster's coordination port (Apache Ratis), cluster mode only. */
    public static final int RAFT_PORT = 7402;

    private static final String CONFIG = "/tmp/rdmakv/node.properties";
    private static final String GO = "/tmp/rdmakv/go";
    /** Waits for the settings, which exist only once the ports are mapped, then becomes the node (exec). */
    private static final String ENTRYPOINT = "while [ ! -e " + GO + " ]; do sleep 0.1; done; exec rdmakv server --config " + CONFIG;

    /** Which address the node tells its clients. */
    public enum Advertise
    {
        /** {@link #getHost()} and the mapped ports: clients anywhere that can reach the Docker host. */
        MAPPED_PORTS,
        /** The container's address on its network and the ports unchanged: peers on the network, clients on the Docker host. */
        CONTAINER_ADDRESS
    }

    private final Map<String, String> settings = new LinkedHashMap<>();
    private final List<String> devices = new ArrayList<>();
    private Advertise advertise = Advertise.MAPPED_PORTS;
    private String advertisedAddress;
    private String secret;

    /**
     * A node of the given image (for example {@code rdmakv:dev}, built from {@code docker/Dockerfile}).
     *
     * @param image the server image.
     */
    public RdmakvContainer(final String image)
    {
        this(DockerImageName.parse(image));
    }

    /**
     * A node of the given image.
     *
     * @param image the server image.
     */
    public RdmakvContainer(final DockerImageName image)
    {
        super(image);
        settings.put("data.dir", "/var/lib/rdmakv/data");
        settings.put("host", "0.0.0.0");
        settings.put("control.port", String.valueOf(CONTROL_PORT));
        settings.put("data.port", String.valueOf(DATA_PORT));
        settings.put("transport", "tcp");
        settings.put("pool.size", "64MiB");
        withExposedPorts(CONTROL_PORT, DATA_PORT);
        withCreateContainerCmdModifier(cmd ->
        {
            cmd.withEntrypoint("bash", "-c", ENTRYPOINT).withCmd(new String[0]);
            cmd.getHostConfig().withUlimits(new Ulimit[] {new Ulimit("memlock", -1L, -1L)});
            if (!devices.isEmpty())
            {
                cmd.getHostConfig().withDevices(devices.stream().map(Device::parse).toList());
            }
        });
        waitingFor(Wait.forLogMessage("READY .*\\n", 1).withStartupTimeout(Duration.ofMinutes(5)));
    }

    /**
     * Requires clients to present this shared secret ({@code auth.secret}).
     *
     * @param secret the credential.
     * @return this container.
     */
    public RdmakvContainer withSecret(final String secret)
    {
        this.secret = Objects.requireNonNull(secret, "secret");
        return withSetting("auth.secret", secret);
    }

    /**
     * The node's transport: {@code tcp} (the default here), {@code verbs} (needs {@link #withRdmaDevices}) or
     * {@code auto}.
     *
     * @param transport the transport's name.
     * @return this container.
     */
    public RdmakvContainer withTransport(final String transport)
    {
        return withSetting("transport", transport);
    }

    /**
     * The size of the node's value pool ({@code pool.size}, e.g. {@code 64MiB}).
     *
     * @param size the size with its unit.
     * @return this container.
     */
    public RdmakvContainer withPoolSize(final String size)
    {
        return withSetting("pool.size", size);
    }

    /**
     * Any server setting ({@code rdmakv server --list-settings}, docs/settings.md).
     *
     * @param name  the setting's name.
     * @param value its value.
     * @return this container.
     */
    public RdmakvContainer withSetting(final String name, final String value)
    {
        settings.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
        return self();
    }

    /**
     * JVM options for the node ({@code RDMAKV_JAVA_OPTS} of the image's launcher), e.g. {@code -Xmx256m}, or
     * {@code -XX:TieredStopAtLevel=1 -XX:+UseSerialGC} on a slow (emulated) Docker host.
     *
     * @param options the options, space separated.
     * @return this container.
     */
    public RdmakvContainer withJavaOptions(final String options)
    {
        return withEnv("RDMAKV_JAVA_OPTS", Objects.requireNonNull(options, "options"));
    }

    /**
     * Passes the Docker host's RDMA character devices into the container (for {@code transport=verbs}), e.g.
     * {@code /dev/infiniband/uverbs0}. Only the devices and the memlock limit are needed: no capability.
     *
     * @param paths device paths on the Docker host.
     * @return this container.
     */
    public RdmakvContainer withRdmaDevices(final String... paths)
    {
        devices.addAll(List.of(paths));
        return self();
    }

    /**
     * Which address the node advertises (default {@link Advertise#MAPPED_PORTS}).
     *
     * @param advertise the choice.
     * @return this container.
     */
    public RdmakvContainer withAdvertise(final Advertise advertise)
    {
        this.advertise = Objects.requireNonNull(advertise, "advertise");
        return self();
    }

    /**
     * The address a client dials ({@code host:port}, the control port), the one the node advertises.
     *
     * @return the seed address.
     */
    public String getSeedAddress()
    {
        return advertise == Advertise.MAPPED_PORTS ? getHost() + ":" + getMappedPort(CONTROL_PORT) :
            advertisedAddress + ":" + CONTROL_PORT;
    }

    /**
     * The credential clients must present, or null when the node needs none.
     *
     * @return the secret.
     */
    public String getSecret()
    {
        return secret;
    }

    /**
     * The node's settings as written into the container (a copy).
     *
     * @return the settings.
     */
    public Map<String, String> getSettings()
    {
        return new LinkedHashMap<>(settings);
    }

    @Override
    protected void containerIsStarting(final InspectContainerResponse info)
    {
        final Map<String, String> effective = new LinkedHashMap<>(settings);
        if (advertise == Advertise.MAPPED_PORTS)
        {
            advertisedAddress = getHost();
            effective.put("advertised.host", advertisedAddress);
            effective.put("advertised.controlPort", String.valueOf(getMappedPort(CONTROL_PORT)));
            effective.put("advertised.dataPort", String.valueOf(getMappedPort(DATA_PORT)));
        }
        else
        {
            advertisedAddress = containerAddress(info);
            effective.put("advertised.host", advertisedAddress);
        }
        final Properties properties = new Properties();
        properties.putAll(effective);
        final StringWriter text = new StringWriter();
        try
        {
            properties.store(text, "written by RdmakvContainer");
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        copyFileToContainer(Transferable.of(text.toString().getBytes(StandardCharsets.ISO_8859_1), 0644), CONFIG);
        copyFileToContainer(Transferable.of(new byte[0], 0644), GO);
    }

    private static String containerAddress(final InspectContainerResponse info)
    {
        for (final ContainerNetwork network : info.getNetworkSettings().getNetworks().values())
        {
            if (network.getIpAddress() != null && !network.getIpAddress().isEmpty())
            {
                return network.getIpAddress();
            }
        }
        throw new IllegalStateException("the container has no network address: " + info.getNetworkSettings());
    }
}

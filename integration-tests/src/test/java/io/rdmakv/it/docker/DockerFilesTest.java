package io.rdmakv.it.docker;

import io.rdmakv.server.config.ClusterSettings;
import io.rdmakv.server.config.ServerConfig;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The files of {@code docker/} checked without a Docker engine: every config the image and the compose cluster
 * start with is accepted by the server's own config loader, the cluster map covers the 16384 slots exactly once and
 * is the same on every node, and the ports and paths the Dockerfile and compose file name agree with the configs.
 */
class DockerFilesTest
{
    private static final Path REPO_ROOT = Path.of(System.getProperty("rdmakv.it.repoRoot", "..")).toAbsolutePath().normalize();
    private static final Path DOCKER = REPO_ROOT.resolve("docker");

    @Test
    void shouldStartTheImageWithAConfigTheServerAccepts() throws IOException
    {
        final String dockerfile = Files.readString(DOCKER.resolve("Dockerfile"));
        final ServerConfig config = ServerConfig.load(DOCKER.resolve("server.properties"), Map.of());
        assertTrue(dockerfile.contains("EXPOSE " + config.controlPort() + " " + config.dataPort()),
            "the Dockerfile exposes the configured ports " + config.controlPort() + " and " + config.dataPort());
        assertEquals("0.0.0.0", config.host(), "inside a container the node binds every interface");
        assertEquals(Path.of("/var/lib/rdmakv/data"), config.dataDir());
        assertTrue(dockerfile.contains("VOLUME " + config.dataDir()), "the data dir is the image's volume");
        assertTrue(dockerfile.contains("\"server\", \"--config\", \"/etc/rdmakv/server.properties\""));

        // Everything the Dockerfile copies from the build context exists in the repository (the jar once built).
        final Matcher copy = Pattern.compile("(?m)^COPY (\\S+) (\\S+)$").matcher(dockerfile);
        final String ignore = Files.readString(DOCKER.resolve("Dockerfile.dockerignore"));
        int copies = 0;
        while (copy.find())
        {
            copies++;
            final String source = copy.group(1);
            assertTrue(ignore.contains("!" + source), source + " must be let through Dockerfile.dockerignore");
            if (!source.endsWith(".jar"))
            {
                assertTrue(Files.isRegularFile(REPO_ROOT.resolve(source)), source + " is copied but missing");
            }
        }
        assertEquals(3, copies, "jar, launcher and config");
        assertTrue(dockerfile.contains("\nUSER rdmakv\n"), "the node runs as the unprivileged user");
        assertTrue(dockerfile.contains("\nHEALTHCHECK "), "the image has a health check");
    }

    @Test
    void shouldInstallInTheImageWhatTheLocalBaseImageAlreadyHas() throws IOException
    {
        // The Dockerfile installs its packages only when the base lacks them; the locally made base
        // (docker/softroce/build-base-image.sh) must have every one, or the guest's offline build would fail.
        final Matcher packages = Pattern.compile("packages=\"([^\"]+)\"").matcher(Files.readString(DOCKER.resolve("Dockerfile")));
        assertTrue(packages.find(), "the Dockerfile names its packages");
        final List<String> base = new ArrayList<>();
        for (final String line : Files.readAllLines(DOCKER.resolve("softroce/base-packages.txt")))
        {
            final String content = line.replaceAll("#.*", "").strip();
            if (!content.isEmpty())
            {
                base.addAll(List.of(content.split("\\s+")));
            }
        }
        assertEquals(new java.util.TreeSet<>(List.of(packages.group(1).split(" "))), new java.util.TreeSet<>(base));
    }

    @Test
    void shouldRunTheComposeClusterAsThreeReplicatedVotersOfOneGroup() throws IOException
    {
        final String compose = Files.readString(DOCKER.resolve("docker-compose.yml"));
        final List<ServerConfig> nodes = new ArrayList<>();
        for (int n = 1; n <= 3; n++)
        {
            final String file = "./cluster/node" + n + ".properties";
            assertTrue(compose.contains(file + ":/etc/rdmakv/node.properties:ro"), "compose mounts " + file);
            final ServerConfig config = ServerConfig.load(DOCKER.resolve(file), Map.of());
            assertEquals(n, config.nodeId());
            final String address = "172.30.74.1" + n;
            assertEquals(address, config.advertisedHost(), "a node advertises its fixed address on the network");
            assertTrue(compose.contains("ipv4_address: " + address), "compose gives node" + n + " " + address);
            nodes.add(config);
        }
        final ClusterSettings first = nodes.get(0).cluster();
        assertTrue(first.enabled(), "cluster mode");
        assertEquals(3, first.voters().size());
        assertEquals(1, first.replicas(), "one backup per range");
        for (final ServerConfig node : nodes)
        {
            assertEquals(first.voters(), node.cluster().voters(), "every node names the same voters");
            final ClusterSettings.Voter self = node.cluster().voter(node.nodeId());
            assertEquals("node" + node.nodeId(), self.host(), "a voter is reached by its service name");
            assertTrue(self.raftPort() != node.controlPort() && self.raftPort() != node.dataPort());
        }
    }
}

package io.rdmakv.it.docker;

import com.github.dockerjava.api.model.Ulimit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.ImageFromDockerfile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The server image of {@code docker/Dockerfile}, built by Testcontainers from the repository's files, serving
 * PUT/GET through the image's own launcher. Skips, with the reason printed, where no Docker engine is reachable or
 * the launcher jar has not been built.
 */
class ServerImageContainerTest
{
    private static final Path REPO_ROOT = Path.of(System.getProperty("rdmakv.it.repoRoot", "..")).toAbsolutePath().normalize();
    private static final int CONTROL_PORT = 7400;
    private static final int DATA_PORT = 7401;

    @BeforeEach
    void requireDockerAndLauncher()
    {
        final boolean docker = DockerClientFactory.instance().isDockerAvailable();
        skipUnless(docker, "no Docker engine is reachable (DOCKER_HOST unset and no usable /var/run/docker.sock)");
        final Path jar = REPO_ROOT.resolve("cli/target/rdmakv.jar");
        skipUnless(Files.isRegularFile(jar), jar + " is missing: run `mvn -B -DskipTests package` first");
    }

    @Test
    @Timeout(900)
    void shouldBuildTheImageAndServePutAndGetThroughTheLauncher() throws Exception
    {
        final ImageFromDockerfile image = new ImageFromDockerfile("rdmakv-it-server", true)
            .withFileFromPath("docker/Dockerfile", REPO_ROOT.resolve("docker/Dockerfile"))
            .withFileFromPath("docker/server.properties", REPO_ROOT.resolve("docker/server.properties"))
            .withFileFromPath("cli/target/rdmakv.jar", REPO_ROOT.resolve("cli/target/rdmakv.jar"))
            .withFileFromPath("bin/rdmakv", REPO_ROOT.resolve("bin/rdmakv"))
            .withDockerfilePath("docker/Dockerfile");

        try (GenericContainer<?> server = new GenericContainer<>(image)
            .withExposedPorts(CONTROL_PORT, DATA_PORT)
            .withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                .withUlimits(new Ulimit[] {new Ulimit("memlock", -1L, -1L)}))
            .waitingFor(Wait.forLogMessage(".*READY.*\\n", 1).withStartupTimeout(Duration.ofMinutes(3))))
        {
            server.start();
            final String seed = "127.0.0.1:" + CONTROL_PORT;

            final ExecResult put = server.execInContainer("rdmakv", "put", "--server", seed, "greeting", "hello from the image");
            assertEquals(0, put.getExitCode(), "put failed: " + put.getStderr());

            final ExecResult get = server.execInContainer("rdmakv", "get", "--server", seed, "greeting");
            assertEquals(0, get.getExitCode(), "get failed: " + get.getStderr());
            assertEquals("hello from the image", get.getStdout().strip());

            final ExecResult missing = server.execInContainer("rdmakv", "get", "--server", seed, "no-such-key");
            assertNotEquals(0, missing.getExitCode(), "a missing key must exit non-zero");
            assertTrue(server.getLogs().contains("READY"), server.getLogs());
        }
    }

    private static void skipUnless(final boolean condition, final String reason)
    {
        if (!condition)
        {
            // Printed so the skip is visible in the test output, not only in the XML report.
            System.out.println("SKIPPED " + ServerImageContainerTest.class.getSimpleName() + ": " + reason);
            System.err.println("SKIPPED " + ServerImageContainerTest.class.getSimpleName() + ": " + reason);
        }
        assumeTrue(condition, reason);
    }
}

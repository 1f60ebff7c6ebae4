package io.rdmakv.it.docker;

import com.github.dockerjava.api.exception.NotFoundException;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.images.builder.ImageFromDockerfile;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * What the container tests need, or the printed reason they skip: a reachable Docker engine and the server image
 * ({@code rdmakv.it.image}, default {@code rdmakv:dev}). A missing image is built from {@code docker/Dockerfile}
 * when the launcher jar exists, FROM {@code rdmakv.it.baseImage} (default {@code debian:bookworm-slim}; the
 * SoftRoCE guest's job builds the image itself from the locally made {@code rdmakv-base:bookworm}).
 */
final class DockerEngine
{
    /** JUnit tag of the tests that need a Docker engine (run by the guest job's container step). */
    static final String TAG = "containers";
    static final Path REPO_ROOT = Path.of(System.getProperty("rdmakv.it.repoRoot", "..")).toAbsolutePath().normalize();

    private DockerEngine()
    {
    }

    /** The image to run, present in the engine; skips the calling test (reason printed) when there is none. */
    static String requireImage(final Class<?> test)
    {
        skipUnless(DockerClientFactory.instance().isDockerAvailable(), test,
            "no Docker engine is reachable (DOCKER_HOST unset and no usable /var/run/docker.sock)");
        final String image = System.getProperty("rdmakv.it.image", "rdmakv:dev");
        try
        {
            DockerClientFactory.instance().client().inspectImageCmd(image).exec();
            return image;
        }
        catch (final NotFoundException absent)
        {
            final Path jar = REPO_ROOT.resolve("cli/target/rdmakv-linux-x86_64.jar");
            skipUnless(Files.isRegularFile(jar), test, "image " + image + " is not in the engine and " + jar +
                " is missing to build it: run `mvn -B -DskipTests package` first");
            return new ImageFromDockerfile(image, false)
                .withFileFromPath("docker/Dockerfile", REPO_ROOT.resolve("docker/Dockerfile"))
                .withFileFromPath("docker/server.properties", REPO_ROOT.resolve("docker/server.properties"))
                .withFileFromPath("cli/target/rdmakv-linux-x86_64.jar", jar)
                .withFileFromPath("bin/rdmakv", REPO_ROOT.resolve("bin/rdmakv"))
                .withDockerfilePath("docker/Dockerfile")
                .withBuildArg("BASE", System.getProperty("rdmakv.it.baseImage", "debian:bookworm-slim"))
                .get();
        }
    }

    /**
     * How long a container may take to become ready: {@code rdmakv.it.containerStartupSeconds} (default 300). The
     * SoftRoCE guest's job sets it to its own READY deadline: under emulation a node's start is CPU-bound and took
     * over 5 minutes at host load ~20 (docker/softroce/README.md).
     */
    static Duration startupTimeout()
    {
        return Duration.ofSeconds(Long.getLong("rdmakv.it.containerStartupSeconds", 300));
    }

    /**
     * How long a node waits for a client's HELLO ({@code auth.handshakeTimeoutMs}):
     * {@code rdmakv.it.containerHandshakeMs} (default 5000, the server's). The guest's job sets 60000: under
     * emulation a cold client JVM took longer than 5 s between connect and HELLO, and the node rejected it
     * ({@code MALFORMED: no good HELLO within 5000 ms}).
     */
    static String handshakeTimeoutMs()
    {
        return String.valueOf(Long.getLong("rdmakv.it.containerHandshakeMs", 5000));
    }

    /**
     * JVM options for the nodes and clients the tests start in containers: $RDMAKV_CONTAINER_JAVA_OPTS (the guest
     * job sets C1 only and the serial collector, as for its own JVMs), else none.
     */
    static String containerJavaOptions()
    {
        final String options = System.getenv("RDMAKV_CONTAINER_JAVA_OPTS");
        return options == null ? "" : options.strip();
    }

    static void skipUnless(final boolean condition, final Class<?> test, final String reason)
    {
        if (!condition)
        {
            // Printed so the skip is visible in the test output, not only in the XML report.
            System.out.println("SKIPPED " + test.getSimpleName() + ": " + reason);
            System.err.println("SKIPPED " + test.getSimpleName() + ": " + reason);
        }
        assumeTrue(condition, reason);
    }

    /** Writes figures to $RDMAKV_RESULTS/NAME (the guest job's results) and prints them. */
    static void record(final String name, final Map<String, String> figures) throws IOException
    {
        final String text = figures.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
            .collect(Collectors.joining("\n", "", "\n"));
        System.out.print(text);
        final String results = System.getenv("RDMAKV_RESULTS");
        if (results != null)
        {
            Files.writeString(Path.of(results, name), text);
        }
    }
}

package io.rdmakv.it.docker;

import io.rdmakv.client.KvAuthenticationException;
import io.rdmakv.client.KvClient;
import io.rdmakv.testcontainers.RdmakvContainer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.Container.ExecResult;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One node of the server image through the Testcontainers module, used as a user's test would: a client in this
 * JVM reaches it through Docker's random mapped ports (the node advertises them), with the credential the container
 * was given. One node serves both tests (a node's start costs minutes under emulation). Skips, the reason printed,
 * without an engine.
 */
@Tag(DockerEngine.TAG)
class RdmakvContainerTest
{
    private static RdmakvContainer node;

    @BeforeAll
    @Timeout(1800)
    static void startNode()
    {
        final String image = DockerEngine.requireImage(RdmakvContainerTest.class);
        node = new RdmakvContainer(image).withSecret("s3cret-for-tests").withPoolSize("32MiB")
            .withJavaOptions(DockerEngine.containerJavaOptions()).withStartupTimeout(DockerEngine.startupTimeout())
            .withSetting("auth.handshakeTimeoutMs", DockerEngine.handshakeTimeoutMs());
        node.start();
    }

    @AfterAll
    static void stopNode()
    {
        if (node != null)
        {
            node.close();
        }
    }

    @Test
    @Timeout(1800)
    void shouldServePutAndGetThroughTheMappedPortsWithTheCredential() throws Exception
    {
        final String seed = node.getSeedAddress();
        assertNotEquals(String.valueOf(RdmakvContainer.CONTROL_PORT), seed.substring(seed.lastIndexOf(':') + 1),
            "Docker maps the control port to a random one: " + seed);
        try (KvClient client = KvClient.builder().server(seed).transport("tcp").secret(node.getSecret())
            .connectTimeout(Duration.ofSeconds(60)).requestTimeout(Duration.ofSeconds(60)).build())
        {
            client.put(bytes("greeting"), bytes("hello from a container"));
            assertArrayEquals(bytes("hello from a container"), client.get(bytes("greeting")));
        }
        assertThrows(KvAuthenticationException.class, () ->
        {
            try (KvClient wrong = KvClient.builder().server(seed).transport("tcp").secret("not-the-secret")
                .connectTimeout(Duration.ofSeconds(60)).build())
            {
                wrong.get(bytes("greeting"));
            }
        });
    }

    @Test
    @Timeout(1800)
    void shouldRunTheNodeAsTheUnprivilegedUserAndReportHealthy() throws Exception
    {
        final ExecResult id = node.execInContainer("id", "-u");
        assertEquals("7400", id.getStdout().strip(), "the image's user rdmakv");
        final ExecResult limit = node.execInContainer("bash", "-c", "ulimit -l");
        assertEquals("unlimited", limit.getStdout().strip(), "the container's memlock limit is lifted");
        // The image's HEALTHCHECK (the control port accepts connections): healthy within its retries.
        final long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(3);
        String health = "";
        while (System.nanoTime() < deadline && !"healthy".equals(health))
        {
            health = node.getCurrentContainerInfo().getState().getHealth().getStatus();
            if (!"healthy".equals(health))
            {
                TimeUnit.MILLISECONDS.sleep(500);
            }
        }
        assertEquals("healthy", health, node.getLogs());
        assertTrue(node.getLogs().contains("READY"), node.getLogs());
    }

    private static byte[] bytes(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

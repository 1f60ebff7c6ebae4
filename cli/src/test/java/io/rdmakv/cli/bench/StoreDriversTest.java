package io.rdmakv.cli.bench;

import io.rdmakv.cli.ExitCodes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The RESP and memcached drivers against the real servers from Debian's packages (redis-server, memcached), started
 * on a free loopback port. Skipped, with the reason, where they are not installed ({@code benchmarks/compare.sh}
 * installs them).
 */
class StoreDriversTest
{
    @Test
    @Timeout(120)
    void shouldDriveRedisServerOverResp() throws Exception
    {
        final Path redis = find("redis-server");
        final int port = freePort();
        try (Server server = new Server(List.of(redis.toString(), "--port", Integer.toString(port), "--bind",
            "127.0.0.1", "--save", "", "--appendonly", "no"), port))
        {
            assertDrives("resp", server.port);
        }
    }

    @Test
    @Timeout(120)
    void shouldDriveMemcachedOverItsTextProtocol() throws Exception
    {
        final Path memcached = find("memcached");
        final int port = freePort();
        final List<String> command = new java.util.ArrayList<>(List.of(memcached.toString(), "-p",
            Integer.toString(port), "-l", "127.0.0.1", "-U", "0"));
        if ("root".equals(System.getProperty("user.name")))
        {
            command.addAll(List.of("-u", "root"));
        }
        try (Server server = new Server(command, port))
        {
            assertDrives("memcached", server.port);
        }
    }

    private static void assertDrives(final String driver, final int port)
    {
        final BenchCommandTest.Run run = BenchCommandTest.run("bench", "--driver", driver, "-s",
            "127.0.0.1:" + port, "--workload", "B", "--keys", "500", "--connections", "2", "--threads", "1",
            "--inflight", "8", "--warmup", "200ms", "--duration", "1s", "--no-progress");
        assertEquals(ExitCodes.OK, run.code(), run.out() + run.err());
        final long gets = BenchCommandTest.count(run.out(), "GET");
        assertTrue(gets > 0 && BenchCommandTest.count(run.out(), "PUT") > 0, run.out());
        assertTrue(run.out().contains(String.format("GET hits    %,d of %,d (100.0%%)", gets, gets)),
            "every loaded key is found through the pipeline: " + run.out());
        assertTrue(run.out().contains("server CPU  ") && !run.out().contains("server CPU  unknown"), run.out());
    }

    private static Path find(final String program)
    {
        for (final String dir : List.of("/usr/bin", "/usr/sbin", "/usr/local/bin"))
        {
            final Path p = Path.of(dir, program);
            if (Files.isExecutable(p))
            {
                return p;
            }
        }
        assumeTrue(false, program + " is not installed (apt-get install " + program + "): test skipped");
        return null;
    }

    private static int freePort() throws IOException
    {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return s.getLocalPort();
        }
    }

    /** A server process, up once its port accepts; destroyed on close. */
    private static final class Server implements AutoCloseable
    {
        private final Process process;
        final int port;

        Server(final List<String> command, final int port) throws Exception
        {
            this.port = port;
            process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (true)
            {
                try (Socket s = new Socket())
                {
                    s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                    return;
                }
                catch (final IOException ex)
                {
                    if (!process.isAlive() || System.nanoTime() > deadline)
                    {
                        close();
                        throw new IllegalStateException(command.get(0) + " did not start on port " + port, ex);
                    }
                    Thread.sleep(50);
                }
            }
        }

        @Override
        public void close()
        {
            process.destroy();
            try
            {
                if (!process.waitFor(10, TimeUnit.SECONDS))
                {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            catch (final InterruptedException ex)
            {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}

package io.rdmakv.it.resp;

import io.rdmakv.it.support.FreePorts;
import io.rdmakv.it.support.ProcessJanitor;
import io.rdmakv.it.support.ServerProcess;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Debian's {@code redis-cli} (package redis-tools; {@code .ci/run} installs redis-server, which brings it) against a
 * node process's RESP port: commands one by one, RESP3 with {@code -3}, and a mass insert with {@code --pipe} (the
 * protocol written as fast as the socket takes it). Skipped, with the reason, where the binary is absent.
 */
@ExtendWith(ProcessJanitor.class)
class RedisCliTest
{
    private static final Path REDIS_CLI = Path.of("/usr/bin/redis-cli");

    @TempDir
    Path tmp;

    private static String cli(final int port, final String stdin, final String... args) throws Exception
    {
        final List<String> cmd = new ArrayList<>(List.of(REDIS_CLI.toString(), "-h", "127.0.0.1", "-p",
            Integer.toString(port)));
        cmd.addAll(List.of(args));
        final Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        if (stdin != null)
        {
            p.getOutputStream().write(stdin.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "redis-cli did not exit");
        assertEquals(0, p.exitValue(), "redis-cli " + args[0] + ": " + out);
        return out.trim();
    }

    @Test
    @Timeout(180)
    void shouldServeRedisCli() throws Exception
    {
        Assumptions.assumeTrue(Files.isExecutable(REDIS_CLI), "redis-cli is not installed here (" + REDIS_CLI +
            "; Debian package redis-tools)");
        final int port = FreePorts.take(1)[0];
        ServerProcess.builder(tmp.resolve("data")).name("resp-cli").setting("resp.port", Integer.toString(port))
            .start();
        assertEquals("PONG", cli(port, null, "PING"));
        assertEquals("OK", cli(port, null, "SET", "greeting", "hello world"));
        assertEquals("hello world", cli(port, null, "GET", "greeting"));
        assertEquals("", cli(port, null, "GET", "missing"), "redis-cli prints nothing for a nil when not on a tty");
        assertEquals("hello world", cli(port, null, "-3", "GET", "greeting"));
        assertEquals("ERR unknown command 'FLUSHALL', with args beginning with:", cli(port, null, "FLUSHALL"));

        final int keys = 5000;
        final StringBuilder pipe = new StringBuilder();
        for (int i = 0; i < keys; i++)
        {
            final String key = "bulk-" + i;
            final String value = "v" + i;
            pipe.append("*3\r\n$3\r\nSET\r\n$").append(key.length()).append("\r\n").append(key).append("\r\n$")
                .append(value.length()).append("\r\n").append(value).append("\r\n");
        }
        final String piped = cli(port, pipe.toString(), "--pipe");
        assertTrue(piped.contains("errors: 0, replies: " + keys), piped);
        assertEquals("v4321", cli(port, null, "GET", "bulk-4321"));
        assertEquals(Integer.toString(keys + 1), cli(port, null, "DBSIZE"));
    }
}

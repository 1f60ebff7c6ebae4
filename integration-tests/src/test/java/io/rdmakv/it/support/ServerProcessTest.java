package io.rdmakv.it.support;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The process harness itself: READY parsing, failure diagnosis, kill/stop/restart. */
@ExtendWith(ProcessJanitor.class)
class ServerProcessTest
{
    @TempDir
    Path dataDir;

    private ServerProcess.Builder fixture(final String mode)
    {
        return ServerProcess.builder(dataDir).name("fixture-" + mode).mainClass(ChildMainFixture.class.getName())
            .systemProperty("fixture.mode", mode).heap("64m").quickStart();
    }

    @Test
    @Timeout(60)
    void shouldParseReadyLineAndPassTheServerFlags() throws Exception
    {
        final ServerProcess server = fixture("ready").setting("pool.size", "4MiB").arg("--verbose").start();
        assertTrue(server.isAlive());
        assertEquals(new InetSocketAddress("127.0.0.1", 17400), server.controlAddress());
        assertEquals(new InetSocketAddress("127.0.0.1", 17401), server.dataAddress());
        assertEquals("127.0.0.1:17400", server.seed());
        assertEquals("7", server.readyFields().get("node"));
        final String stdout = Files.readString(server.stdoutLog());
        assertTrue(stdout.contains("--config " + server.configFile() + " --verbose"), stdout);
        final String config = Files.readString(server.configFile());
        assertTrue(config.contains("data.dir=" + dataDir), config);
        assertTrue(config.contains("pool.size=4MiB"), config);
        assertTrue(config.contains("control.port=0"), config);
    }

    @Test
    @Timeout(60)
    void shouldKillWithSigkillAndRestartOnTheSameDataDir()
    {
        final ServerProcess server = fixture("ready").start();
        final long firstPid = server.pid();
        server.kill();
        assertFalse(server.isAlive());
        server.restart();
        assertTrue(server.isAlive());
        assertNotEquals(firstPid, server.pid());
        assertEquals(dataDir, server.dataDir());
        assertThrows(IllegalStateException.class, server::restart, "restart of a live process must be refused");
    }

    @Test
    @Timeout(60)
    void shouldStopWithSigtermAndReportTheExitCode()
    {
        final ServerProcess server = fixture("ready").start();
        final int exit = server.stop(Duration.ofSeconds(20));
        assertFalse(server.isAlive());
        assertEquals(143, exit, "a JVM ended by SIGTERM without its own handler exits 128 + 15");
    }

    @Test
    @Timeout(60)
    void shouldQuoteStderrWhenTheChildExitsBeforeReady()
    {
        final IllegalStateException ex = assertThrows(IllegalStateException.class, () -> fixture("fail").start());
        assertTrue(ex.getMessage().contains("exited before READY"), ex.getMessage());
        assertTrue(ex.getMessage().contains("code 3"), ex.getMessage());
        assertTrue(ex.getMessage().contains("fixture failure: cannot open data dir"), ex.getMessage());
    }

    @Test
    @Timeout(60)
    void shouldGiveUpAndKillWhenReadyNeverComes()
    {
        final ServerProcess server = fixture("silent").readyTimeout(Duration.ofSeconds(2)).build();
        final IllegalStateException ex = assertThrows(IllegalStateException.class, server::start);
        assertTrue(ex.getMessage().contains("no READY line within"), ex.getMessage());
        assertFalse(server.isAlive(), "a child that never became ready must be killed");
    }
}

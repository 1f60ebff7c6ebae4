package io.rdmakv.it.e2e;

import io.rdmakv.client.GetMode;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.nio.file.Files;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The end-to-end suite against a node under {@code durability=FSYNC}: every write, atomic batches and conditional
 * writes included, goes through the group committer and is answered once its group's WAL write is synced; GETs
 * one-sided (emulated over tcp), as a cache-warm client reads.
 */
class EndToEndFsyncNodeTest extends AbstractEndToEndTest
{
    @BeforeAll
    static void startServer() throws IOException
    {
        startServer(Map.of("durability", "FSYNC"));
    }

    @Override
    protected GetMode getMode()
    {
        return GetMode.ONE_SIDED;
    }

    @Test
    @Timeout(60)
    void shouldRunTheNodeUnderFsync() throws IOException
    {
        final String log = Files.readString(server().stdoutLog()) + Files.readString(server().stderrLog());
        assertTrue(log.contains("durability FSYNC"), log);
    }
}

package io.rdmakv.server.cli;

import io.rdmakv.server.load.SyntheticDataSet;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoadCommandTest
{
    @TempDir
    Path dir;

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(final String... args)
    {
        return new CommandLine(new LoadCommand(new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8))).execute(args);
    }

    @Test
    @Timeout(60)
    void shouldLoadTheSetAndNameThePoolSizeThatHoldsIt()
    {
        assertEquals(0, run("--data-dir", dir.toString(), "--keys", "500", "--key-size", "8", "--value-size", "300"));
        final String text = out.toString(StandardCharsets.UTF_8);
        assertTrue(text.contains("loaded 500 keys"), text);
        assertTrue(text.matches("(?s).*rdmakv server --data-dir \\S+ --pool-size \\d+MiB.*"), text);
        final SyntheticDataSet set = new SyntheticDataSet(500, 8, 300);
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            assertArrayEquals(set.value(499), store.get(set.key(499)));
        }
    }

    @Test
    @Timeout(60)
    void shouldExplainBadOptionsAndAStoreInUse()
    {
        assertEquals(2, run("--data-dir", dir.toString(), "--keys", "100000", "--key-size", "4"));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("key size must be in [6, 1024]"), err.toString());
        try (RocksStore store = RocksStore.open(dir, Durability.DEFAULT))
        {
            assertEquals(1, run("--data-dir", store.directory().toString(), "--keys", "10"));
            assertTrue(err.toString(StandardCharsets.UTF_8).contains("cannot open RocksDB"), err.toString());
        }
    }
}

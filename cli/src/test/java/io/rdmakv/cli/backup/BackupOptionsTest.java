package io.rdmakv.cli.backup;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Usage errors of backup and restore exit 2 with the reason, before any connection; so does a missing backup (1). */
class BackupOptionsTest
{
    @TempDir
    Path dir;

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int backup(final String... args)
    {
        final CommandLine cl = new CommandLine(new BackupCommand(new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true)));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private int restore(final String... args)
    {
        final CommandLine cl = new CommandLine(new RestoreCommand(new PrintStream(new ByteArrayOutputStream()),
            new PrintStream(err, true)));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    private String err()
    {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void shouldRefuseBadOptions()
    {
        final String out = dir.resolve("out").toString();
        assertEquals(2, backup("--cluster", "127.0.0.1:1", "--slots", "0-10", "--out", out));
        assertTrue(err().contains("--slots goes with --server"), err());
        assertEquals(2, backup("--cluster", "127.0.0.1:1", "--server", "127.0.0.1:1", "--out", out));
        assertTrue(err().contains("mutually exclusive"), err());
        assertEquals(2, backup("--out", out));
        assertEquals(2, backup("--cluster", "nohost", "--out", out));
        assertTrue(err().contains("expected HOST:PORT: nohost"), err());
        assertEquals(2, restore("--in", out, "--cluster", "127.0.0.1:1", "--batch", "0"));
        assertTrue(err().contains("--batch must be 1 to 65536"), err());
        assertEquals(2, restore("--in", out, "--cluster", "127.0.0.1:1,bad"));
        assertEquals(1, restore("--in", out, "--cluster", "127.0.0.1:1"));
        assertTrue(err().contains("not a cluster backup"), err());
        assertTrue(Files.notExists(dir.resolve("out")), "nothing written");
    }
}

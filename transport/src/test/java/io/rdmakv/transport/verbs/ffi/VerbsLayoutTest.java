package io.rdmakv.transport.verbs.ffi;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Compiles {@code verbs_layout.c} with gcc against the installed {@code <infiniband/verbs.h>} and checks every size,
 * offset and enum value it prints against {@link VerbsLayout}. Skips (with the reason) only when gcc or the header is
 * missing; any mismatch fails, listing all of them.
 */
class VerbsLayoutTest
{
    private static final Path HEADER = Path.of("/usr/include/infiniband/verbs.h");

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldMatchEveryStructOffsetAndEnumOfTheCHeader() throws Exception
    {
        Assumptions.assumeTrue(Files.exists(HEADER),
            "skipped: " + HEADER + " not installed (apt-get install libibverbs-dev)");
        Assumptions.assumeTrue(hasGcc(), "skipped: gcc not found on PATH (apt-get install gcc)");

        final Path dir = Files.createTempDirectory("verbs-layout");
        final Path source = dir.resolve("verbs_layout.c");
        final Path binary = dir.resolve("verbs_layout");
        try (InputStream in = VerbsLayoutTest.class.getResourceAsStream("/verbs/verbs_layout.c"))
        {
            assertTrue(in != null, "verbs_layout.c missing from test resources");
            Files.copy(in, source);
        }
        final Run compile = run(List.of("gcc", "-O0", "-o", binary.toString(), source.toString()));
        assertEquals(0, compile.exit, "gcc failed:\n" + compile.output);
        final Run layout = run(List.of(binary.toString()));
        assertEquals(0, layout.exit, "layout program failed:\n" + layout.output);

        final Map<String, Long> fromC = new LinkedHashMap<>();
        for (final String line : layout.output.split("\n"))
        {
            if (line.isBlank())
            {
                continue;
            }
            final String[] parts = line.trim().split("\\s+");
            fromC.put(parts[0], Long.parseLong(parts[1]));
        }
        final Map<String, Long> fromJava = VerbsLayout.byCName();
        final List<String> problems = new ArrayList<>();
        for (final Map.Entry<String, Long> e : fromC.entrySet())
        {
            final Long java = fromJava.get(e.getKey());
            if (java == null)
            {
                problems.add(e.getKey() + ": printed by C (" + e.getValue() + ") but has no Java constant");
            }
            else if (!java.equals(e.getValue()))
            {
                problems.add(e.getKey() + ": C says " + e.getValue() + ", Java says " + java);
            }
        }
        for (final String name : fromJava.keySet())
        {
            if (!fromC.containsKey(name))
            {
                problems.add(name + ": Java constant not checked by the C program");
            }
        }
        if (!problems.isEmpty())
        {
            fail("libibverbs ABI mismatch (" + problems.size() + "): the binding would corrupt memory:\n  " +
                String.join("\n  ", problems));
        }
        assertTrue(fromC.size() > 100, "expected the full list, got " + fromC.size());
    }

    private static boolean hasGcc()
    {
        try
        {
            return run(List.of("gcc", "--version")).exit == 0;
        }
        catch (final IOException | InterruptedException e)
        {
            return false;
        }
    }

    private record Run(int exit, String output)
    {
    }

    private static Run run(final List<String> command) throws IOException, InterruptedException
    {
        final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(50, TimeUnit.SECONDS))
        {
            p.destroyForcibly();
            return new Run(-1, out + "\n(timed out)");
        }
        return new Run(p.exitValue(), out);
    }
}

package io.rdmakv.transport;

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

/**
 * Shared by the layout tests: compile a C program from the test resources with gcc, run it, and compare the
 * {@code name value} lines it prints with the constants the Java binding declares.
 */
public final class CLayoutCheck
{
    private CLayoutCheck()
    {
    }

    /** True when gcc runs. */
    public static boolean hasGcc()
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

    /** Compile and run {@code resource}; its output as name -> value. Fails the test if either step fails. */
    public static Map<String, Long> valuesFromC(final String resource) throws IOException, InterruptedException
    {
        final Path dir = Files.createTempDirectory("c-layout");
        final Path source = dir.resolve("layout.c");
        final Path binary = dir.resolve("layout");
        try (InputStream in = CLayoutCheck.class.getResourceAsStream(resource))
        {
            assertTrue(in != null, resource + " missing from test resources");
            Files.copy(in, source);
        }
        final Run compile = run(List.of("gcc", "-O0", "-o", binary.toString(), source.toString()));
        assertEquals(0, compile.exit, "gcc failed:\n" + compile.output);
        final Run layout = run(List.of(binary.toString()));
        assertEquals(0, layout.exit, "layout program failed:\n" + layout.output);
        final Map<String, Long> fromC = new LinkedHashMap<>();
        for (final String line : layout.output.split("\n"))
        {
            if (!line.isBlank())
            {
                final String[] parts = line.trim().split("\\s+");
                fromC.put(parts[0], Long.parseLong(parts[1]));
            }
        }
        return fromC;
    }

    /** Every disagreement between the C program's values and the Java constants, both ways; empty when they match. */
    public static List<String> mismatches(final Map<String, Long> fromC, final Map<String, Long> fromJava)
    {
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
        return problems;
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

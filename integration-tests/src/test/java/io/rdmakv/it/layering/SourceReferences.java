package io.rdmakv.it.layering;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Names in the main sources of a module, for what bytecode does not show: javac inlines a constant
 * ({@code VerbsTransportProvider.NAME}), so a class can know a transport by name and still not depend on it in its
 * class file. Comment lines are left out.
 */
public final class SourceReferences
{
    private SourceReferences()
    {
    }

    /**
     * The code lines of {@code module}'s main sources under {@code packageDir} that match {@code pattern}.
     *
     * @param module     the module's folder ({@code kvstore-client}).
     * @param packageDir a folder under {@code src/main/java} ({@code io/rdmakv/client}).
     * @param pattern    what must not appear.
     * @return {@code path:line: text} of each match; empty when none.
     */
    static List<String> find(final String module, final String packageDir, final Pattern pattern)
    {
        final Path root = repositoryRoot().resolve(module).resolve("src/main/java").resolve(packageDir);
        if (!Files.isDirectory(root))
        {
            throw new IllegalStateException("no sources at " + root);
        }
        final List<String> found = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root))
        {
            for (final Path file : (Iterable<Path>)files.filter(f -> f.toString().endsWith(".java"))::iterator)
            {
                final List<String> lines = Files.readAllLines(file);
                for (int i = 0; i < lines.size(); i++)
                {
                    final String line = lines.get(i).trim();
                    final boolean comment = line.startsWith("*") || line.startsWith("/*") || line.startsWith("//");
                    if (!comment && pattern.matcher(line).find())
                    {
                        found.add(root.relativize(file) + ":" + (i + 1) + ": " + line);
                    }
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return found;
    }

    /** The checkout this test runs in: the nearest directory above the working one with transport/pom.xml. */
    public static Path repositoryRoot()
    {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent())
        {
            if (Files.isRegularFile(dir.resolve("transport/pom.xml")) && Files.isRegularFile(dir.resolve("pom.xml")))
            {
                return dir;
            }
        }
        throw new IllegalStateException("no rdmakv checkout above " + Path.of("").toAbsolutePath());
    }
}

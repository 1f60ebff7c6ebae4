package io.rdmakv.it.support;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removes a directory tree a test created (data dirs of class-scoped servers). */
public final class Trees
{
    private Trees()
    {
    }

    public static void delete(final Path root) throws IOException
    {
        if (root == null || !Files.exists(root))
        {
            return;
        }
        try (Stream<Path> paths = Files.walk(root))
        {
            for (final Path p : paths.sorted(Comparator.reverseOrder()).toList())
            {
                Files.deleteIfExists(p);
            }
        }
    }
}

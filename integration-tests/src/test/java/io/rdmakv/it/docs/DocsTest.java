package io.rdmakv.it.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmakv.it.layering.SourceReferences;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The documentation names only what the repository holds (issue 29, "Docs that stay true").
 * <ul>
 *   <li>Every code span in a {@code README.md}, a {@code docs/*.md} page or {@code benchmarks/RESULTS.md} that names
 *   a Java type ({@code `KvServer`}, {@code `KvClient.get`}, {@code `KvClient#get`}, {@code `store.RocksStore`}) names
 *   a type some {@code .java} file of the repository declares, or a library type on this test's class path under one
 *   of {@link #LIBRARY_PACKAGES}. A span with a package ({@code `store.RocksStore`}) must name the package the type
 *   is declared in.</li>
 *   <li>Every relative markdown link ({@code [text](path)}, {@code [text](path#anchor)}) in any {@code .md} file of
 *   the repository points at a file or folder that exists, and an anchor into a markdown file at one of its
 *   headings.</li>
 * </ul>
 * Reads files only: no build output, no network; fenced code blocks are skipped.
 */
final class DocsTest
{
    /** Packages a library type named in the docs may come from (tried in order with the span's type name). */
    private static final List<String> LIBRARY_PACKAGES = List.of(
        "java.lang", "java.util", "java.util.concurrent", "java.util.concurrent.atomic",
        "java.util.concurrent.locks", "java.util.function", "java.util.zip", "java.io", "java.nio",
        "java.nio.channels", "java.net", "java.security",
        "org.agrona", "org.agrona.concurrent", "org.agrona.collections",
        "io.netty.buffer", "io.netty.channel", "io.netty.channel.epoll", "io.netty.handler.codec",
        "io.netty.handler.flush", "io.netty.handler.ssl", "io.netty.util",
        "org.rocksdb", "org.apache.ratis.statemachine.impl", "com.sun.jna",
        "io.micrometer.core.instrument", "io.micrometer.prometheusmetrics");

    /**
     * Names written like types that are not on this class path, each with its reason. Keep it short: a name of the
     * project never belongs here.
     */
    private static final Set<String> NOT_ON_CLASS_PATH = Set.of(
        // Chronicle Bytes: optional in kvstore-client, so not on this module's class path.
        "Bytes", "BytesStore", "MappedBytes", "MappedFile", "DecoratedBufferOverflowException",
        "ClosedIllegalStateException",
        // Logback: the cli's backend, excluded from this module's class path.
        "JsonEncoder",
        // InfiniBand PortCounters (docs/operations.md, what doctor reads from sysfs), not Java types.
        "SymbolErrorCounter", "PortRcvErrors", "PortXmitDiscards", "LinkErrorRecoveryCounter", "LinkDownedCounter",
        // YCSB core's launcher: only on benchmarks/ycsb's class path.
        "site.ycsb.Client",
        // java.lang.foreign (final in JDK 22): the FFM bindings' API, absent from the JDK 17 this test may run on.
        "Linker", "Option",
        // Not types: a file name, an HTTP header.
        "Dockerfile", "Accept");

    /** An inline code span on one line. */
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`\n]+)`");

    /**
     * A span that names a type: optional lower-case package segments, one or more type names (each with a lower-case
     * letter, so {@code DEFAULT} or {@code FSYNC} are not types), then an optional member after {@code .} or
     * {@code #}, with or without an argument list.
     */
    private static final Pattern TYPE_SPAN = Pattern.compile(
        "((?:[a-z][a-z0-9_]*\\.)*)((?:[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*\\.)*[A-Z][A-Za-z0-9_]*[a-z][A-Za-z0-9_]*)"
            + "(?:[.#][A-Za-z_][A-Za-z0-9_]*(?:\\([^)]*\\))?)?");

    /** A type declaration in Java source. */
    private static final Pattern DECLARATION =
        Pattern.compile("\\b(?:class|interface|enum|record|@interface)\\s+([A-Z][A-Za-z0-9_]*)");

    /** An inline markdown link or image: {@code [text](target)} or {@code [text](target "title")}. */
    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    private static Path root;
    /** Type simple name to the folders (relative to the root, '/'-separated) of the files that declare it. */
    private static Map<String, Set<String>> declared;
    private static List<Path> markdown;

    @BeforeAll
    static void index() throws IOException
    {
        root = SourceReferences.repositoryRoot();
        declared = new HashMap<>();
        final List<Path> java = files(".java");
        for (final Path file : java)
        {
            final String folder = root.relativize(file.getParent()).toString().replace('\\', '/');
            final Matcher m = DECLARATION.matcher(Files.readString(file));
            while (m.find())
            {
                declared.computeIfAbsent(m.group(1), k -> new HashSet<>()).add(folder);
            }
        }
        markdown = files(".md");
        assertTrue(declared.containsKey("KvServer") && java.size() > 100, "the source index is empty: " + root);
    }

    @Test
    void everyTypeTheDocsNameExists() throws IOException
    {
        final List<String> missing = new ArrayList<>();
        int checked = 0;
        for (final Path file : markdown)
        {
            if (!namesTypes(file))
            {
                continue;
            }
            final List<String> lines = proseLines(file);
            for (int i = 0; i < lines.size(); i++)
            {
                final String line = lines.get(i);
                if (line == null)
                {
                    continue;
                }
                final Matcher span = CODE_SPAN.matcher(line);
                while (span.find())
                {
                    final Matcher type = TYPE_SPAN.matcher(span.group(1).trim());
                    if (type.matches())
                    {
                        checked++;
                        final String packagePart = type.group(1);
                        final String typePart = type.group(2);
                        if (!exists(packagePart, typePart))
                        {
                            missing.add(root.relativize(file) + ":" + (i + 1) + ": `" + span.group(1) + "`");
                        }
                    }
                }
            }
        }
        assertTrue(checked > 500, "too few type names found (" + checked + "): is the span pattern broken?");
        assertEquals(List.of(), missing, "docs name types no .java file declares (nor a library on the class path)");
    }

    @Test
    void everyRelativeLinkResolves() throws IOException
    {
        final List<String> broken = new ArrayList<>();
        final Map<Path, Set<String>> anchors = new HashMap<>();
        for (final Path file : markdown)
        {
            final List<String> lines = proseLines(file);
            for (int i = 0; i < lines.size(); i++)
            {
                final String line = lines.get(i);
                if (line == null)
                {
                    continue;
                }
                final Matcher link = LINK.matcher(CODE_SPAN.matcher(line).replaceAll("``"));
                while (link.find())
                {
                    final String target = link.group(1);
                    if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*"))
                    {
                        continue; // http:, https:, mailto:
                    }
                    final int hash = target.indexOf('#');
                    final String path = hash < 0 ? target : target.substring(0, hash);
                    final String anchor = hash < 0 ? null : target.substring(hash + 1);
                    final Path resolved = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
                    final String where = root.relativize(file) + ":" + (i + 1) + ": (" + target + ")";
                    if (!resolved.startsWith(root) || !Files.exists(resolved))
                    {
                        broken.add(where + " no such file");
                    }
                    else if (anchor != null && resolved.toString().endsWith(".md")
                        && !anchors.computeIfAbsent(resolved, DocsTest::anchorsOf).contains(anchor))
                    {
                        broken.add(where + " no such heading");
                    }
                }
            }
        }
        assertEquals(List.of(), broken, "relative links to what the repository does not hold");
    }

    /** The lines of a markdown file, each inside a fenced code block (and the fences) as null: indices stay line numbers. */
    private static List<String> proseLines(final Path file) throws IOException
    {
        final List<String> lines = new ArrayList<>(Files.readAllLines(file));
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++)
        {
            final boolean fence = lines.get(i).stripLeading().startsWith("```");
            if (fence)
            {
                fenced = !fenced;
            }
            if (fence || fenced)
            {
                lines.set(i, null);
            }
        }
        return lines;
    }

    /** README.md anywhere, the pages under docs/ and the figures' summary: the files that describe the code now. */
    private static boolean namesTypes(final Path file)
    {
        final Path relative = root.relativize(file);
        return relative.getFileName().toString().equals("README.md")
            || (relative.getNameCount() == 2 && relative.getName(0).toString().equals("docs"))
            || relative.toString().replace('\\', '/').equals("benchmarks/RESULTS.md");
    }

    private static boolean exists(final String packagePart, final String typePart)
    {
        final String[] types = typePart.split("\\.");
        final String simple = types[types.length - 1];
        if (packagePart.isEmpty())
        {
            for (final String type : types)
            {
                if (!declared.containsKey(type) && !NOT_ON_CLASS_PATH.contains(type) && !library(typePart))
                {
                    return false;
                }
            }
            return true;
        }
        final String folder = "/" + packagePart.substring(0, packagePart.length() - 1).replace('.', '/');
        final String declaredIn = types.length > 1 ? types[0] : simple;
        for (final String dir : declared.getOrDefault(declaredIn, Set.of()))
        {
            if (("/" + dir).endsWith(folder))
            {
                return true;
            }
        }
        return NOT_ON_CLASS_PATH.contains(packagePart + typePart) || loads(packagePart + typePart.replace('.', '$'));
    }

    private static boolean library(final String typePart)
    {
        final String binary = typePart.replace('.', '$');
        return LIBRARY_PACKAGES.stream().anyMatch(p -> loads(p + "." + binary));
    }

    private static boolean loads(final String name)
    {
        try
        {
            Class.forName(name, false, DocsTest.class.getClassLoader());
            return true;
        }
        catch (final ClassNotFoundException | LinkageError ex)
        {
            return false;
        }
    }

    /** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
    private static Set<String> anchorsOf(final Path file)
    {
        final Set<String> anchors = new TreeSet<>();
        final Map<String, Integer> seen = new HashMap<>();
        try
        {
            boolean fenced = false;
            for (final String line : Files.readAllLines(file))
            {
                if (line.stripLeading().startsWith("```"))
                {
                    fenced = !fenced;
                    continue;
                }
                final Matcher heading = HEADING.matcher(line);
                if (!fenced && heading.matches())
                {
                    final String text = heading.group(1).replaceAll("`", "").replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
                    final String slug = text.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}\\- _]", "")
                        .replace(' ', '-');
                    final int n = seen.merge(slug, 1, Integer::sum) - 1;
                    anchors.add(n == 0 ? slug : slug + "-" + n);
                }
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException(ex);
        }
        return anchors;
    }

    /** Every file of the repository with this ending, outside build output and hidden folders, in order. */
    private static List<Path> files(final String ending) throws IOException
    {
        final List<Path> found = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>()
        {
            @Override
            public FileVisitResult preVisitDirectory(final Path dir, final BasicFileAttributes attrs)
            {
                final String name = dir.equals(root) ? "" : dir.getFileName().toString();
                return name.equals("target") || name.equals("node_modules") || name.startsWith(".")
                    ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(final Path file, final BasicFileAttributes attrs)
            {
                if (attrs.isRegularFile() && file.getFileName().toString().endsWith(ending))
                {
                    found.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        found.sort(null);
        return found;
    }
}

package io.rdmakv.it.faults;

import io.rdmakv.it.support.history.LinearizabilityChecker;
import io.rdmakv.it.support.history.Operation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Keeps what explains a failed linearizability check after the test's temporary directory is gone: the recorded
 * history (one operation a line, the checker's report first) and the nodes' logs (stdout and stderr of every start,
 * and the RocksDB {@code LOG} files of their data directories), in one new directory under the module's
 * {@code target/failed-histories}. A linearizable history keeps nothing.
 */
final class FailedHistoryKeeper
{
    /** Under the module's {@code target/}, beside {@code it-logs}. */
    static final String DIRECTORY = "failed-histories";

    private static final Pattern STDOUT_LOG = Pattern.compile("^(.*)-\\d+\\.stdout\\.log$");
    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss-SSS", Locale.ROOT);

    private FailedHistoryKeeper()
    {
    }

    /** The module's {@code target/failed-histories} (Maven sets {@code basedir} for the tests). */
    static Path defaultRoot()
    {
        return Path.of(System.getProperty("basedir", "."), "target", DIRECTORY);
    }

    /**
     * When {@code report} is not linearizable, write {@code history} and copy {@code logs} (files; a missing one is
     * named in the index, not an error) into a new directory under {@code root} named after {@code scenario}.
     *
     * @return that directory, or null when the history was linearizable (nothing kept).
     */
    static Path keepIfFailed(final LinearizabilityChecker.Report report, final List<Operation> history,
        final String scenario, final List<Path> logs, final Path root)
    {
        if (report.linearizable())
        {
            return null;
        }
        try
        {
            final Path dir = Files.createDirectories(root.resolve(slug(scenario) + "-" +
                LocalDateTime.now().format(STAMP)));
            final List<String> lines = new ArrayList<>(history.size() + 2);
            lines.add("# " + scenario);
            lines.add("# " + report.toString().replace("\n", "\n# "));
            history.forEach(op -> lines.add(op.toString()));
            Files.write(dir.resolve("history.txt"), lines, StandardCharsets.UTF_8);
            final List<String> index = new ArrayList<>();
            final Path logDir = Files.createDirectories(dir.resolve("logs"));
            for (int i = 0; i < logs.size(); i++)
            {
                final Path log = logs.get(i);
                if (!Files.isRegularFile(log))
                {
                    index.add("missing " + log);
                    continue;
                }
                // Numbered: two nodes' RocksDB logs are both called LOG.
                final Path copy = logDir.resolve(String.format(Locale.ROOT, "%02d-%s", i, log.getFileName()));
                Files.copy(log, copy, StandardCopyOption.REPLACE_EXISTING);
                index.add(copy.getFileName() + " <- " + log);
            }
            Files.write(dir.resolve("logs.txt"), index, StandardCharsets.UTF_8);
            return dir;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot keep the failed history of " + scenario + " under " + root, ex);
        }
    }

    /**
     * The logs of a node: stdout and stderr of each of its starts ({@code <name>-<start>.stdout.log} beside
     * {@code lastStdout}), and the RocksDB {@code LOG} files under {@code dataDir}.
     */
    static List<Path> nodeLogs(final Path lastStdout, final Path dataDir)
    {
        final List<Path> out = new ArrayList<>();
        if (lastStdout != null)
        {
            final Matcher m = STDOUT_LOG.matcher(lastStdout.getFileName().toString());
            final Pattern mine = m.matches()
                ? Pattern.compile(Pattern.quote(m.group(1)) + "-\\d+\\.std(out|err)\\.log")
                : Pattern.compile(Pattern.quote(lastStdout.getFileName().toString()));
            out.addAll(matching(lastStdout.getParent(), 1, p -> mine.matcher(p.getFileName().toString()).matches()));
        }
        if (dataDir != null)
        {
            out.addAll(matching(dataDir, 4, p -> p.getFileName().toString().startsWith("LOG")));
        }
        return out;
    }

    private static List<Path> matching(final Path dir, final int depth, final java.util.function.Predicate<Path> keep)
    {
        if (dir == null || !Files.isDirectory(dir))
        {
            return List.of();
        }
        try (Stream<Path> files = Files.walk(dir, depth))
        {
            return files.filter(Files::isRegularFile).filter(keep).sorted().toList();
        }
        catch (final IOException | UncheckedIOException ex)
        {
            return List.of(); // a node still writing its directory: keep what the others have
        }
    }

    private static String slug(final String scenario)
    {
        final String s = scenario.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("^-|-$", "");
        return s.length() > 60 ? s.substring(0, 60) : s;
    }
}

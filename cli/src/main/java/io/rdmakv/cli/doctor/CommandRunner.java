package io.rdmakv.cli.doctor;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs a short external command ({@code ldconfig -p}, {@code dpkg-query}) and gives its standard output; injectable
 * so tests can feed known output. A missing command, a failure to start or a timeout gives empty, never an exception
 * and never a hang.
 */
@FunctionalInterface
public interface CommandRunner
{
    /** How long a command may take before it is killed and treated as absent. */
    long TIMEOUT_SECONDS = 5;
    /** Output beyond this is ignored (the commands used print a few KiB). */
    int MAX_OUTPUT_BYTES = 1 << 20;

    /**
     * @param command the program and its arguments.
     * @return standard output when the program ran (whatever its exit code: {@code dpkg-query} exits 1 when only
     *         some packages are missing), or empty when it could not run or took too long.
     */
    Optional<String> run(List<String> command);

    /**
     * The real thing: {@link ProcessBuilder} with output to a temporary file (so a silent, stuck child cannot block a
     * read), standard error discarded, standard input empty, at most {@link #TIMEOUT_SECONDS}.
     */
    static CommandRunner system()
    {
        return command ->
        {
            Path out = null;
            try
            {
                out = Files.createTempFile("rdmakv-doctor", ".out");
                final Process process = new ProcessBuilder(command)
                    .redirectOutput(out.toFile())
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .start();
                if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS))
                {
                    process.destroyForcibly();
                    return Optional.empty();
                }
                final byte[] bytes = Files.readAllBytes(out);
                return Optional.of(new String(bytes, 0, Math.min(bytes.length, MAX_OUTPUT_BYTES),
                    StandardCharsets.UTF_8));
            }
            catch (final IOException | SecurityException ex)
            {
                return Optional.empty();
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
            finally
            {
                if (out != null)
                {
                    try
                    {
                        Files.deleteIfExists(out);
                    }
                    catch (final IOException ignore)
                    {
                        // A leftover temp file is harmless; the report matters more.
                    }
                }
            }
        };
    }
}

package io.rdmakv.transport.diag;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs a short external command ({@code ldconfig -p}, {@code dpkg-query}) and gives its standard output; injectable
 * so tests can feed known output. A missing command, a failure to start or a timeout gives empty, never an exception.
 */
@FunctionalInterface
public interface CommandRunner
{
    /**
     * @param command the program and its arguments.
     * @return standard output when the program ran (whatever its exit code: {@code dpkg-query} exits 1 when only
     *         some packages are missing), or empty when it could not run or took too long.
     */
    Optional<String> run(List<String> command);

    /** The real thing: {@link ProcessBuilder}, standard error discarded, at most five seconds. */
    static CommandRunner system()
    {
        return command ->
        {
            final Process process;
            try
            {
                process = new ProcessBuilder(command)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            }
            catch (final IOException | SecurityException ex)
            {
                return Optional.empty();
            }
            try (InputStream in = process.getInputStream())
            {
                // The outputs read here are a few KiB; reading before waiting avoids a full pipe blocking the child.
                final ByteArrayOutputStream out = new ByteArrayOutputStream();
                final byte[] buf = new byte[8192];
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                int n;
                while ((n = in.read(buf)) >= 0 && out.size() < (1 << 20))
                {
                    out.write(buf, 0, n);
                    if (System.nanoTime() > deadline)
                    {
                        process.destroyForcibly();
                        return Optional.empty();
                    }
                }
                if (!process.waitFor(5, TimeUnit.SECONDS))
                {
                    process.destroyForcibly();
                    return Optional.empty();
                }
                return Optional.of(out.toString(StandardCharsets.UTF_8));
            }
            catch (final IOException ex)
            {
                process.destroyForcibly();
                return Optional.empty();
            }
            catch (final InterruptedException ex)
            {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
                return Optional.empty();
            }
        };
    }
}

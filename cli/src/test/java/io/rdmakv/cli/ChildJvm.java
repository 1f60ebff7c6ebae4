package io.rdmakv.cli;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A main class of this module's test class path in a child JVM with the launcher's flags: for exit codes and signals
 * that only a real process has. {@link #run} waits for the exit; {@link #startUntil} returns once a line appears.
 */
final class ChildJvm implements AutoCloseable
{
    static final List<String> FLAGS = List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xmx256m",
        "--add-opens", "java.base/jdk.internal.misc=ALL-UNNAMED", "--add-opens", "java.base/java.nio=ALL-UNNAMED",
        "--add-opens", "java.base/sun.nio.ch=ALL-UNNAMED", "-Dio.netty.tryReflectionSetAccessible=true",
        "--enable-native-access=ALL-UNNAMED");

    /** What a finished child left. */
    record Result(int code, String out, String err)
    {
    }

    private final Process process;
    private final Path err;
    /** The stdout lines {@link #startUntil} read, the one it waited for last. */
    private final List<String> linesRead = new ArrayList<>();

    private ChildJvm(final Process process, final Path err)
    {
        this.process = process;
        this.err = err;
    }

    private static List<String> command(final List<String> jvmFlags, final String mainClass, final String... args)
    {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmFlags);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), mainClass));
        command.addAll(List.of(args));
        return command;
    }

    /** Run to completion (at most 90 s, then killed and failed). */
    static Result run(final Path tmp, final List<String> jvmFlags, final String mainClass, final String... args)
        throws IOException, InterruptedException
    {
        return run(tmp, Map.of(), jvmFlags, mainClass, args);
    }

    /** {@link #run} with {@code env} added to the child's environment. */
    static Result run(final Path tmp, final Map<String, String> env, final List<String> jvmFlags,
        final String mainClass, final String... args) throws IOException, InterruptedException
    {
        final Path out = Files.createTempFile(tmp, "out", ".log");
        final Path err = Files.createTempFile(tmp, "err", ".log");
        final ProcessBuilder pb = new ProcessBuilder(command(jvmFlags, mainClass, args)).redirectOutput(out.toFile())
            .redirectError(err.toFile());
        pb.environment().putAll(env);
        final Process p = pb.start();
        try
        {
            if (!p.waitFor(90, TimeUnit.SECONDS))
            {
                throw new IllegalStateException(mainClass + " did not finish in 90 s: " + Files.readString(err));
            }
        }
        finally
        {
            p.destroyForcibly();
        }
        return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
            Files.readString(err, StandardCharsets.UTF_8));
    }

    /** Start and read stdout until a line starting with {@code prefix}; that line (the child keeps running). */
    static ChildJvm startUntil(final Path tmp, final String prefix, final String[] line, final String mainClass,
        final String... args) throws IOException
    {
        return startUntil(tmp, Map.of(), prefix, line, mainClass, args);
    }

    /** {@link #startUntil} with {@code env} added to the child's environment. */
    static ChildJvm startUntil(final Path tmp, final Map<String, String> env, final String prefix, final String[] line,
        final String mainClass, final String... args) throws IOException
    {
        final Path err = Files.createTempFile(tmp, "child-err", ".log");
        final ProcessBuilder pb = new ProcessBuilder(command(FLAGS, mainClass, args)).redirectError(err.toFile());
        pb.environment().putAll(env);
        final Process p = pb.start();
        final ChildJvm child = new ChildJvm(p, err);
        final BufferedReader reader = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String l;
        while ((l = reader.readLine()) != null)
        {
            child.linesRead.add(l);
            if (l.startsWith(prefix))
            {
                line[0] = l;
                return child;
            }
        }
        child.close();
        throw new IllegalStateException(mainClass + " exited without a " + prefix + " line: " + Files.readString(err));
    }

    /** The child's command line as {@code ps} shows it to anyone on the host ({@code /proc/PID/cmdline}). */
    String commandLine() throws IOException
    {
        return new String(Files.readAllBytes(Path.of("/proc", Long.toString(process.pid()), "cmdline")),
            StandardCharsets.UTF_8).replace('\0', ' ');
    }

    /** The stdout lines read until the awaited one (that one last). */
    List<String> linesRead()
    {
        return List.copyOf(linesRead);
    }

    /** Everything the child wrote to stderr so far. */
    String errText() throws IOException
    {
        return Files.readString(err, StandardCharsets.UTF_8);
    }

    /** SIGTERM, and SIGKILL after 30 s. */
    @Override
    public void close()
    {
        process.destroy();
        try
        {
            if (!process.waitFor(30, TimeUnit.SECONDS))
            {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}

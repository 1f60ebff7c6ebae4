package io.rdmakv.cli;

import io.rdmakv.client.KvException;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;

/**
 * Entry point of {@code rdmakv.jar} (run by {@code bin/rdmakv}). {@link #run} is the same without
 * {@link System#exit}, for tests and embedding.
 */
public final class RdmakvMain
{
    private RdmakvMain()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            LogSetup.apply(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("rdmakv: " + ex.getMessage());
            System.exit(ExitCodes.USAGE);
        }
        System.exit(run(Io.system(), ArgBytes.ofProcess(args), args));
    }

    /**
     * Run one command line.
     *
     * @return the exit code ({@link ExitCodes}).
     */
    public static int run(final Io io, final String... args)
    {
        return run(io, ArgBytes.textOnly(args), args);
    }

    /** Run one command line whose arguments' bytes are {@code bytes}; returns the exit code. */
    public static int run(final Io io, final ArgBytes bytes, final String... args)
    {
        return commandLine(io, bytes, args).execute(args);
    }

    /** The configured command line for arguments given as text (see {@link ArgBytes#textOnly}). */
    public static CommandLine commandLine(final Io io)
    {
        return commandLine(io, ArgBytes.textOnly(new String[0]));
    }

    /** The configured command line with every subcommand: streams, exit codes, failures printed as one line. */
    public static CommandLine commandLine(final Io io, final ArgBytes bytes)
    {
        return commandLine(io, bytes, new String[0]);
    }

    /**
     * The configured command line for {@code args}: when the first argument names a subcommand (or an alias of one),
     * only that subcommand is added, so picocli does not build the others' models; otherwise (help, an option first,
     * an unknown command) every one, so that help and errors list them all.
     */
    public static CommandLine commandLine(final Io io, final ArgBytes bytes, final String... args)
    {
        final CommandLine cl = new CommandLine(new RdmakvCommand(io, bytes));
        final Class<?> named = args.length == 0 ? null : subcommandNamed(args[0]);
        for (final Class<?> subcommand : RdmakvCommand.SUBCOMMANDS)
        {
            if (named == null || subcommand == named)
            {
                cl.addSubcommand(subcommand);
            }
        }
        cl.setOut(new PrintWriter(io.out(), true, StandardCharsets.UTF_8));
        cl.setErr(new PrintWriter(io.err(), true, StandardCharsets.UTF_8));
        cl.setExecutionExceptionHandler((ex, commandLine, parseResult) ->
        {
            if (ex instanceof IllegalArgumentException)
            {
                io.err().println("rdmakv: " + ex.getMessage());
                return ExitCodes.USAGE;
            }
            if (ex instanceof KvException kv)
            {
                io.err().println("rdmakv: " + kv.getMessage());
                return ExitCodes.of(kv);
            }
            io.err().println("rdmakv: " + ex);
            if (Boolean.getBoolean("rdmakv.debug"))
            {
                ex.printStackTrace(io.err());
            }
            return ExitCodes.FAILED;
        });
        return cl;
    }

    /** The subcommand whose name or alias is {@code word} (read from its annotation alone), or null. */
    static Class<?> subcommandNamed(final String word)
    {
        for (final Class<?> subcommand : RdmakvCommand.SUBCOMMANDS)
        {
            final CommandLine.Command command = subcommand.getAnnotation(CommandLine.Command.class);
            if (command != null && !"help".equals(command.name()) &&
                (command.name().equals(word) || java.util.Arrays.asList(command.aliases()).contains(word)))
            {
                return subcommand;
            }
        }
        return null;
    }
}

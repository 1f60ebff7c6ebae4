package io.rdmakv.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A command line that names a subcommand builds only that one; help and errors still list every subcommand. */
class SubcommandsTest
{
    private static final Io QUIET = new Io(System.in, new PrintStream(new ByteArrayOutputStream()),
        new PrintStream(new ByteArrayOutputStream()));

    @Test
    void shouldBuildOnlyTheSubcommandTheCommandLineNames()
    {
        assertEquals(Set.of("get"), names("get", "-s", "127.0.0.1:1", "k"));
        assertEquals(Set.of("cluster"), names("cluster", "status", "--server", "127.0.0.1:1"));
        assertEquals(everyName(), names("--help"));
        assertEquals(everyName(), names("help", "get"));
        assertEquals(everyName(), names("no-such-command"));
        assertEquals(everyName(), names());
        assertNull(RdmakvMain.subcommandNamed("-s"));
    }

    @Test
    void shouldListEverySubcommandInTheTopLevelHelp()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Io io = new Io(System.in, new PrintStream(out, true), new PrintStream(new ByteArrayOutputStream()));
        assertEquals(0, RdmakvMain.run(io, "--help"));
        final String help = out.toString(StandardCharsets.UTF_8);
        for (final String name : everyName())
        {
            assertTrue(help.contains("  " + name + " ") || help.contains("  " + name + "\n") ||
                help.contains("  " + name + ","), name + " in:\n" + help);
        }
    }

    @Test
    void shouldAnswerASubcommandsHelpFromItsOwnModel()
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final Io io = new Io(System.in, new PrintStream(out, true), new PrintStream(new ByteArrayOutputStream()));
        assertEquals(0, RdmakvMain.run(io, "get", "--help"));
        assertTrue(out.toString(StandardCharsets.UTF_8).contains("Usage: rdmakv get"), out.toString());
    }

    private static Set<String> names(final String... args)
    {
        return RdmakvMain.commandLine(QUIET, ArgBytes.textOnly(args), args).getSubcommands().keySet().stream()
            .filter(n -> isName(n)).collect(java.util.stream.Collectors.toSet());
    }

    /** The subcommands' names (not their aliases). */
    private static Set<String> everyName()
    {
        final List<String> names = RdmakvCommand.SUBCOMMANDS.stream()
            .map(c -> c.getAnnotation(CommandLine.Command.class).name()).toList();
        return Set.copyOf(names);
    }

    private static boolean isName(final String name)
    {
        return everyName().contains(name);
    }
}

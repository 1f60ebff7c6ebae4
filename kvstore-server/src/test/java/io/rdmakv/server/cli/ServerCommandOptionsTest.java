package io.rdmakv.server.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/**
 * The conventional flags fit together: {@code rdmakv server --port P} listens where {@code rdmakv get --server HOST:P}
 * connects, i.e. {@code --port} is the control port; the data port is told to clients in the handshake.
 */
class ServerCommandOptionsTest
{
    @Test
    void shouldTreatPortAsTheControlPortClientsDial()
    {
        final ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs("--port", "7555", "--data-dir", "/tmp/x");

        assertEquals(7555, command.controlPort);
        assertNull(command.dataPort, "the data port keeps its default unless --data-port is given");
    }

    @Test
    void shouldSetTheDataPortOnlyThroughItsOwnFlag()
    {
        final ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs("--control-port", "7600", "--data-port", "7601");

        assertEquals(7600, command.controlPort);
        assertEquals(7601, command.dataPort);
    }

    @Test
    void shouldTakeServeShmAsAutoTrueOrFalseWithTheBareFlagMeaningTrue()
    {
        assertNull(parse().overrides().get("transport.serveShm"), "unset: the setting's default (auto)");
        assertEquals("true", parse("--serve-shm").overrides().get("transport.serveShm"));
        assertEquals("false", parse("--serve-shm=false").overrides().get("transport.serveShm"));
        assertEquals("auto", parse("--serve-shm", "auto").overrides().get("transport.serveShm"));
    }

    private static ServerCommand parse(final String... args)
    {
        final ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }
}

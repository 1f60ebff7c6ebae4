package io.rdmakv.server.cli;

import io.rdmakv.server.config.NetworkKeys;
import io.rdmakv.server.config.PoolKeys;
import io.rdmakv.server.config.RespKeys;
import io.rdmakv.server.config.SettingCatalog;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
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

    @Test
    void shouldMapEveryFlagToADeclaredSetting()
    {
        final ServerCommand command = parse("--port", "7500", "--data-port", "7501", "--data-dir", "/tmp/x", "--host",
            "127.0.0.1", "--advertised-host", "h", "--advertised-control-port", "1", "--advertised-data-port", "2",
            "--advertised-tcp-port", "3", "--tcp-port", "4", "--serve-shm", "--pool-size", "8MiB", "--transport", "tcp",
            "--durability", "FSYNC", "--node-id", "5", "--pin", "OFF", "--secret-file", "/tmp/s", "--cluster-nodes",
            "5@h:7500:0-16383", "--metrics-port", "6", "--resp-port", "7");
        command.environment = name -> null;
        final java.util.Map<String, String> overrides = command.overrides();
        assertEquals(19, overrides.size(), overrides.toString());
        for (final String name : overrides.keySet())
        {
            assertNotNull(SettingCatalog.find(name), name + " is not a declared setting");
        }
        assertEquals("8MiB", overrides.get(PoolKeys.SIZE.name()));
        assertEquals("7", overrides.get(RespKeys.PORT.name()));
        assertEquals("7500", overrides.get(NetworkKeys.CONTROL_PORT.name()));
    }

    private static ServerCommand parse(final String... args)
    {
        final ServerCommand command = new ServerCommand();
        new CommandLine(command).parseArgs(args);
        return command;
    }
}

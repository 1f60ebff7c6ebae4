package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/** {@code rdmakv get KEY}: prints the value alone on stdout; a missing key exits 1 with a message on stderr. */
@Command(name = "get", mixinStandardHelpOptions = true,
    description = "Print the value of KEY on standard output (raw bytes). Exit 1 when the key does not exist.")
public final class GetCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Option(names = {"-n", "--no-newline"}, description = "Do not print a newline after the value.")
    boolean noNewline;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
    String key;

    @Override
    public Integer call()
    {
        final Io io = parent.io();
        try (KvClient kv = client.connect())
        {
            final byte[] value = kv.get(key.getBytes(StandardCharsets.UTF_8));
            if (value == null)
            {
                io.err().println("rdmakv: key not found: " + key);
                return ExitCodes.NOT_FOUND;
            }
            io.out().write(value, 0, value.length);
            if (!noNewline)
            {
                io.out().println();
            }
            io.out().flush();
            return ExitCodes.OK;
        }
    }
}

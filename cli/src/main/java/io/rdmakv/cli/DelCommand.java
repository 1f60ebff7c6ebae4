package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/** {@code rdmakv del KEY}: exit 0 when deleted, 1 when the key did not exist. */
@Command(name = "del", aliases = "delete", mixinStandardHelpOptions = true,
    description = "Delete KEY. Exit 1 when the key did not exist.")
public final class DelCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
    String key;

    @Override
    public Integer call()
    {
        try (KvClient kv = client.connect())
        {
            if (!kv.delete(key.getBytes(StandardCharsets.UTF_8)))
            {
                parent.io().err().println("rdmakv: key not found: " + key);
                return ExitCodes.NOT_FOUND;
            }
        }
        return ExitCodes.OK;
    }
}

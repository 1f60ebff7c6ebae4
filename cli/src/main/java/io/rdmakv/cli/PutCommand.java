package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;

/** {@code rdmakv put KEY VALUE} or {@code rdmakv put KEY -} (value from standard input, raw bytes). */
@Command(name = "put", mixinStandardHelpOptions = true,
    description = "Store VALUE under KEY. VALUE '-' reads the value from standard input (raw bytes, to EOF).")
public final class PutCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (UTF-8).")
    String key;

    @Parameters(index = "1", paramLabel = "VALUE", description = "The value (UTF-8), or - for standard input.")
    String value;

    @Override
    public Integer call()
    {
        final byte[] bytes;
        if ("-".equals(value))
        {
            try
            {
                bytes = parent.io().in().readAllBytes();
            }
            catch (final IOException ex)
            {
                throw new UncheckedIOException("cannot read the value from standard input", ex);
            }
        }
        else
        {
            bytes = value.getBytes(StandardCharsets.UTF_8);
        }
        try (KvClient kv = client.connect())
        {
            kv.put(key.getBytes(StandardCharsets.UTF_8), bytes);
        }
        return ExitCodes.OK;
    }
}

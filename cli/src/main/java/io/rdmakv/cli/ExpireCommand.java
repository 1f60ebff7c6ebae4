package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.concurrent.Callable;

/** {@code rdmakv expire KEY DURATION}: KEY expires DURATION from now; exit 1 when KEY does not exist. */
@Command(name = "expire", mixinStandardHelpOptions = true,
    description = "Make KEY expire after DURATION (10s, 500ms, 2m, 1h, 1d, or seconds). Exit 1 when KEY does not exist.")
public final class ExpireCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (its bytes as given).")
    String key;

    @Parameters(index = "1", paramLabel = "DURATION", description = "How long from now the key lives.")
    String duration;

    @Override
    public Integer call()
    {
        final byte[] k = parent.args().bytes(key, "KEY", "--key-hex");
        final java.time.Duration ttl = Durations.parse(duration, "DURATION");
        try (KvClient kv = client.connect())
        {
            if (!kv.expire(k, ttl))
            {
                parent.io().err().println("rdmakv: key not found: " + KeyOptions.describe(k));
                return ExitCodes.NOT_FOUND;
            }
        }
        return ExitCodes.OK;
    }
}

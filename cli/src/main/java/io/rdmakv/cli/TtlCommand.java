package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.concurrent.Callable;

/** {@code rdmakv ttl KEY}: the seconds KEY has left, as Redis's TTL: -1 without expiry, -2 when absent. */
@Command(name = "ttl", mixinStandardHelpOptions = true,
    description = "Print the seconds KEY has left (rounded), -1 when it has no expiry, -2 when it does not exist.")
public final class TtlCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (its bytes as given).")
    String key;

    @Override
    public Integer call()
    {
        final byte[] k = parent.args().bytes(key, "KEY", "--key-hex");
        try (KvClient kv = client.connect())
        {
            final long millis = kv.ttlMillis(k);
            parent.io().out().println(Long.toString(millis < 0 ? millis : (millis + 500) / 1000));
            parent.io().out().flush();
        }
        return ExitCodes.OK;
    }
}

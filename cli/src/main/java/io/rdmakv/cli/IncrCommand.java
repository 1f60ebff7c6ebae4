package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.concurrent.Callable;

/** {@code rdmakv incr KEY [DELTA]}: add DELTA (default 1) to KEY's decimal value and print the new value. */
@Command(name = "incr", mixinStandardHelpOptions = true,
    description = {"Add DELTA (default 1; may be negative) to KEY's value read as a decimal int64 (absent: 0) and " +
        "print the new value.", "Exit 3 when the value is not an integer or the sum overflows."})
public final class IncrCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "KEY", description = "The key (its bytes as given).")
    String key;

    @Parameters(index = "1", arity = "0..1", paramLabel = "DELTA", description = "The increment (default 1).")
    long delta = 1;

    @Override
    public Integer call()
    {
        final byte[] k = parent.args().bytes(key, "KEY", "--key-hex");
        try (KvClient kv = client.connect())
        {
            parent.io().out().println(Long.toString(kv.increment(k, delta)));
            parent.io().out().flush();
        }
        return ExitCodes.OK;
    }
}

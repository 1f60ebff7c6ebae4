package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.concurrent.Callable;

/** {@code rdmakv del KEY}: exit 0 when deleted, 1 when the key did not exist. */
@Command(name = "del", aliases = "delete", mixinStandardHelpOptions = true,
    description = "Delete KEY (its bytes as given, or --key-hex/--key-base64). Exit 1 when the key did not exist.")
public final class DelCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Mixin
    KeyOptions keyOptions;

    @Parameters(index = "0", arity = "0..1", paramLabel = "KEY", description = "The key (its bytes as given).")
    String key;

    @picocli.CommandLine.Option(names = "--if-version", paramLabel = "V",
        description = "Delete only if KEY's version is V (get --with-version prints it; else exit 3).")
    Long ifVersion;

    @Override
    public Integer call()
    {
        final byte[] k = keyOptions.key(key, parent.args());
        try (KvClient kv = client.connect())
        {
            if (ifVersion != null)
            {
                final io.rdmakv.client.WriteResult result = kv.delete(k, ifVersion);
                if (!result.applied())
                {
                    parent.io().err().println("rdmakv: condition failed: " + KeyOptions.describe(k) +
                        (result.version() == 0 ? " is absent" : " is at version " + result.version()) +
                        ", nothing deleted");
                    return ExitCodes.CONDITION_FAILED;
                }
                return ExitCodes.OK;
            }
            if (!kv.delete(k))
            {
                parent.io().err().println("rdmakv: key not found: " + KeyOptions.describe(k));
                return ExitCodes.NOT_FOUND;
            }
        }
        return ExitCodes.OK;
    }
}

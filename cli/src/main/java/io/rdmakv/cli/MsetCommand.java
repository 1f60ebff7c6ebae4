package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.WriteBatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Parameters;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv mset KEY VALUE [KEY VALUE ...] [--delete KEY ...]}: one atomic batch ({@link KvClient#writeBatch()}):
 * every PUT and DELETE applied or none, the keys sharing one hash slot ({@code {tag}}).
 */
@Command(name = "mset", mixinStandardHelpOptions = true,
    description = {"Store every KEY VALUE pair (and delete every --delete KEY) atomically: all or nothing, in one " +
        "write on the keys' primary, replicated as one unit.", "The keys must share a hash slot: give them one hash " +
        "tag, e.g. {user42}:name {user42}:mail. Keys of different slots: exit 3 (CROSSSLOT), nothing written."})
public final class MsetCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Option(names = "--delete", paramLabel = "KEY", description = "Also delete KEY in the same batch (repeatable).")
    List<String> deletes = new ArrayList<>();

    @Parameters(paramLabel = "KEY VALUE", arity = "0..*",
        description = "Pairs of a key and its value (the bytes given).")
    List<String> pairs = new ArrayList<>();

    @Override
    public Integer call()
    {
        if (pairs.size() % 2 != 0)
        {
            throw new IllegalArgumentException("mset takes KEY VALUE pairs: " + pairs.size() + " arguments given");
        }
        if (pairs.isEmpty() && deletes.isEmpty())
        {
            throw new IllegalArgumentException("mset needs at least one KEY VALUE pair or --delete KEY");
        }
        try (KvClient kv = client.connect())
        {
            final WriteBatch batch = kv.writeBatch();
            for (int i = 0; i < pairs.size(); i += 2)
            {
                batch.put(parent.args().bytes(pairs.get(i), "KEY", "rdmakv put --key-hex"),
                    parent.args().bytes(pairs.get(i + 1), "VALUE", "rdmakv put --value-hex"));
            }
            for (final String key : deletes)
            {
                batch.delete(parent.args().bytes(key, "KEY", "rdmakv put --key-hex"));
            }
            batch.execute();
        }
        return ExitCodes.OK;
    }
}

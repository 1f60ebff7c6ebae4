package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.concurrent.Callable;

/** {@code rdmakv prefix PREFIX [--limit N] [--json]}: the keys starting with PREFIX, in key order, with their values. */
@Command(name = "prefix", mixinStandardHelpOptions = true,
    description = {"Print the keys that start with PREFIX, in key order, with their values: KEY<TAB>VALUE per " +
        "line, or a JSON array of {key, value} with --json.",
        "PREFIX must hold a whole hash tag, as {user1}:, so that its keys are in one hash slot."})
public final class PrefixCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "PREFIX", description = "The keys' common start, with {tag}.")
    String prefix;

    @Option(names = "--limit", paramLabel = "N", defaultValue = "1000",
        description = "Entries at most (default ${DEFAULT-VALUE}).")
    int limit;

    @Option(names = "--json", description = "Print one JSON array of {\"key\", \"value\"} (UTF-8 text).")
    boolean json;

    @Override
    public Integer call()
    {
        final Io io = parent.io();
        try (KvClient kv = client.connect())
        {
            RangeCommand.print(io, kv.prefix(RangeCommand.utf8Bytes(prefix), limit), json);
            return ExitCodes.OK;
        }
    }
}

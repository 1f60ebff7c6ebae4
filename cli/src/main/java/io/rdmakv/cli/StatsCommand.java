package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.ParentCommand;

import java.util.concurrent.Callable;

/** {@code rdmakv stats}: every node's counters and this client's, one {@code name=value} per line. */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = "Print the counters of every node (node.<id>.<name>=value) and of this client.")
public final class StatsCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Override
    public Integer call()
    {
        try (KvClient kv = client.connect())
        {
            parent.io().out().print(kv.stats().format());
            parent.io().out().flush();
        }
        return ExitCodes.OK;
    }
}

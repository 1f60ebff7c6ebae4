package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvStats;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv stats}: what every node reports (Redis INFO-like: version, uptime, transport and why, memory, keys,
 * latency per operation, counters) and this client's counters; text {@code name=value} lines or one JSON document.
 * Every node: the ranges' primaries and, in a replicated cluster, the members that are primary of nothing. Exits
 * {@link ExitCodes#FAILED} when a node did not answer (the others are still printed).
 */
@Command(name = "stats", mixinStandardHelpOptions = true,
    description = {"Print what every node reports (node.<id>.<name>=value: version, uptime.ms, transport and "
        + "transport.reason, memory.pool/pinned/heap/direct bytes, pool.keys, store.keysEstimate, latency.<op>, and "
        + "every counter) and this client's counters (client.<name>=value).",
        "A node that does not answer is printed as node.<id>.error=... and the exit code is 3."},
    exitCodeListHeading = "%nExit codes:%n", exitCodeList = {
        "0:ok", "2:usage error", "3:unreachable, or a node did not answer", "4:the credential was refused"})
public final class StatsCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Option(names = "--json", description = "one JSON document: {\"nodes\": [{\"id\": 1, name: value, \"latency\": " +
        "{op: {count, meanUs, p50Us, p99Us, maxUs}}}], \"client\": {...}} (docs/operations.md)")
    boolean json;

    @Override
    public Integer call() throws Exception
    {
        final KvStats stats;
        try (KvClient kv = client.connect())
        {
            stats = kv.stats();
        }
        parent.io().out().print(json ? StatsJson.render(stats) + "\n" : stats.format());
        parent.io().out().flush();
        int code = ExitCodes.OK;
        for (final Map.Entry<Integer, Map<String, String>> node : new TreeMap<>(stats.nodes()).entrySet())
        {
            final String error = node.getValue().get("error");
            if (error != null)
            {
                parent.io().err().println("rdmakv: node " + node.getKey() + " did not answer: " + error);
                code = ExitCodes.FAILED;
            }
        }
        return code;
    }
}

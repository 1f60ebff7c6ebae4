package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.ScanCursor;
import io.rdmakv.client.ScanResult;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv scan [--match GLOB] [--count N] [--json]}: every key of the cluster, scanned to the end with Redis's
 * guarantee (each key present throughout is printed at least once, across resharding and failover).
 */
@Command(name = "scan", mixinStandardHelpOptions = true,
    description = {"Print every key of the cluster (matching --match), one per line, or as one JSON array with " +
        "--json.", "Scans node by node in requests of --count keys; a key present during the whole scan is printed " +
        "at least once, even while ranges move or fail over."})
public final class ScanCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Option(names = "--match", paramLabel = "GLOB",
        description = "Only keys matching this Redis glob: * ? [abc] [^a] [a-z] \\x (default: every key).")
    String match;

    @Option(names = "--count", paramLabel = "N", defaultValue = "100",
        description = "Keys asked of a node per request, a hint as Redis's COUNT (1..65535, default ${DEFAULT-VALUE}).")
    int count;

    @Option(names = "--json", description = "Print one JSON array of the keys (UTF-8 text) instead of lines.")
    boolean json;

    @Override
    public Integer call()
    {
        if (count < 1 || count > 65_535)
        {
            throw new IllegalArgumentException("--count takes 1..65535, not " + count);
        }
        final Io io = parent.io();
        try (KvClient kv = client.connect())
        {
            final List<String> all = new ArrayList<>();
            ScanCursor cursor = ScanCursor.START;
            do
            {
                final ScanResult result = kv.scan(cursor, match, count);
                for (final byte[] key : result.keys())
                {
                    if (json)
                    {
                        all.add(new String(key, StandardCharsets.UTF_8));
                    }
                    else
                    {
                        io.out().write(key, 0, key.length);
                        io.out().println();
                    }
                }
                cursor = result.cursor();
            }
            while (!cursor.isFinished());
            if (json)
            {
                io.out().println(Json.line(all));
            }
            io.out().flush();
            return ExitCodes.OK;
        }
    }
}

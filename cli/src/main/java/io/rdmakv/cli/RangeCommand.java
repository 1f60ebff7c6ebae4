package io.rdmakv.cli;

import io.rdmakv.client.KvClient;
import io.rdmakv.client.KvEntry;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdmakv range FROM TO [--limit N] [--json]}: the keys from FROM (inclusive) to TO (exclusive) of one hash tag,
 * in key order, with their values.
 */
@Command(name = "range", mixinStandardHelpOptions = true,
    description = {"Print the keys from FROM (inclusive) to TO (exclusive), in key order, with their values: " +
        "KEY<TAB>VALUE per line, or a JSON array of {key, value} with --json.",
        "FROM and TO must share a hash slot: give them the same hash tag, as {user1}:a and {user1}:z."})
public final class RangeCommand implements Callable<Integer>
{
    @ParentCommand
    RdmakvCommand parent;

    @Mixin
    ClientOptions client;

    @Parameters(index = "0", paramLabel = "FROM", description = "The first key (inclusive).")
    String from;

    @Parameters(index = "1", paramLabel = "TO", description = "The end (exclusive).")
    String to;

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
            print(io, kv.range(utf8Bytes(from), utf8Bytes(to), limit), json);
            return ExitCodes.OK;
        }
    }

    /** Entries as KEY TAB VALUE lines, or one JSON array. */
    static void print(final Io io, final List<KvEntry> entries, final boolean json)
    {
        if (json)
        {
            final List<Object> all = new java.util.ArrayList<>();
            for (final KvEntry e : entries)
            {
                all.add(Json.fields("key", utf8(e.key()), "value", utf8(e.value())));
            }
            io.out().println(Json.line(all));
        }
        else
        {
            for (final KvEntry e : entries)
            {
                io.out().write(e.key(), 0, e.key().length);
                io.out().write('\t');
                io.out().write(e.value(), 0, e.value().length);
                io.out().println();
            }
        }
        io.out().flush();
    }

    static byte[] utf8Bytes(final String text)
    {
        return text.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String utf8(final byte[] bytes)
    {
        return new String(bytes, java.nio.charset.StandardCharsets.UTF_8);
    }
}

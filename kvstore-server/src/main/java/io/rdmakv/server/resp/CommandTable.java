package io.rdmakv.server.resp;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The commands the RESP listener answers, as Redis describes its own (COMMAND, COMMAND INFO, COMMAND COUNT, COMMAND
 * DOCS): name, arity (negative: at least), flags, key positions, summary and group. Arity is checked from here.
 */
final class CommandTable
{
    /** One command's description. */
    record Spec(String name, int arity, List<String> flags, int firstKey, int lastKey, int step, String summary,
        String group)
    {
        /** Whether {@code argc} arguments (the name included) fit the arity. */
        boolean arityFits(final int argc)
        {
            return arity >= 0 ? argc == arity : argc >= -arity;
        }

        /** COMMAND's entry: name, arity, flags, first key, last key, step, ACL categories, tips, key specs, subcommands. */
        RespReply info()
        {
            final List<RespReply> f = new ArrayList<>();
            for (final String flag : flags)
            {
                f.add(RespReply.simple(flag));
            }
            return RespReply.array(List.of(RespReply.bulk(name), RespReply.integer(arity), RespReply.array(f),
                RespReply.integer(firstKey), RespReply.integer(lastKey), RespReply.integer(step),
                RespReply.array(List.of()), RespReply.array(List.of()), RespReply.array(List.of()),
                RespReply.array(List.of())));
        }

        /** COMMAND DOCS's entry for this command. */
        RespReply docs()
        {
            return RespReply.map(List.of(RespReply.bulk("summary"), RespReply.bulk(summary),
                RespReply.bulk("since"), RespReply.bulk("1.0.0"), RespReply.bulk("group"), RespReply.bulk(group)));
        }
    }

    static final Map<String, Spec> COMMANDS = table();
    /**
     * The commands by the lower case of their name's first letter ({@link #find(byte[])}): a command's name is found
     * from the request's bytes with no String made (a String per command cost 2-3% of a GET's event-loop time at
     * 50 x 16, 2026-12-08).
     */
    private static final Spec[][] BY_FIRST_LETTER = byFirstLetter();

    private CommandTable()
    {
    }

    /** The command named {@code name} (any case), or null. */
    static Spec find(final String lowerName)
    {
        return COMMANDS.get(lowerName);
    }

    /** The command named {@code name} (ASCII, any case), or null; its {@link Spec#name} is the lower-case name. */
    static Spec find(final byte[] name)
    {
        if (name.length == 0)
        {
            return null;
        }
        final int first = name[0] | 0x20;
        if (first < 'a' || first > 'z')
        {
            return null;
        }
        for (final Spec spec : BY_FIRST_LETTER[first - 'a'])
        {
            if (equalsIgnoreCase(spec.name(), name))
            {
                return spec;
            }
        }
        return null;
    }

    /** Whether {@code name} (ASCII letters, lower case) equals {@code arg} in any case. */
    private static boolean equalsIgnoreCase(final String name, final byte[] arg)
    {
        if (name.length() != arg.length)
        {
            return false;
        }
        for (int i = 0; i < arg.length; i++)
        {
            final int b = arg[i];
            // Only an ASCII letter folds: 'A'..'Z' to 'a'..'z'; any other byte must match as it is.
            final int lower = b >= 'A' && b <= 'Z' ? b | 0x20 : b;
            if (lower != name.charAt(i))
            {
                return false;
            }
        }
        return true;
    }

    private static Spec[][] byFirstLetter()
    {
        final List<List<Spec>> letters = new ArrayList<>();
        for (int i = 0; i < 26; i++)
        {
            letters.add(new ArrayList<>());
        }
        for (final Spec spec : COMMANDS.values())
        {
            letters.get(spec.name().charAt(0) - 'a').add(spec);
        }
        final Spec[][] table = new Spec[26][];
        for (int i = 0; i < 26; i++)
        {
            table[i] = letters.get(i).toArray(new Spec[0]);
        }
        return table;
    }

    /** ASCII lower case of a command or option name. */
    static String lower(final byte[] arg)
    {
        return new String(arg, StandardCharsets.US_ASCII).toLowerCase(java.util.Locale.ROOT);
    }

    private static Map<String, Spec> table()
    {
        final Map<String, Spec> m = new LinkedHashMap<>();
        final List<String> fastRead = List.of("readonly", "fast");
        final List<String> write = List.of("write");
        final List<String> conn = List.of("fast", "loading", "stale");
        add(m, "ping", -1, conn, 0, 0, 0, "Returns the server's liveliness response.", "connection");
        add(m, "echo", 2, conn, 0, 0, 0, "Returns the given string.", "connection");
        add(m, "hello", -1, List.of("noscript", "loading", "stale", "fast", "no_auth"), 0, 0, 0,
            "Handshakes with the Redis server.", "connection");
        add(m, "auth", -2, List.of("noscript", "loading", "stale", "fast", "no_auth"), 0, 0, 0,
            "Authenticates the connection.", "connection");
        add(m, "select", 2, conn, 0, 0, 0, "Changes the selected database (0 only).", "connection");
        add(m, "quit", -1, List.of("fast", "no_auth", "allow_busy"), 0, 0, 0, "Closes the connection.",
            "connection");
        add(m, "client", -2, List.of("loading", "stale"), 0, 0, 0,
            "SETNAME, GETNAME, ID, INFO, SETINFO of the connection.", "connection");
        add(m, "get", 2, fastRead, 1, 1, 1, "Returns the string value of a key.", "string");
        add(m, "set", -3, List.of("write", "denyoom"), 1, 1, 1, "Sets the string value of a key.", "string");
        add(m, "getdel", 2, List.of("write", "fast"), 1, 1, 1,
            "Returns the string value of a key after deleting the key.", "string");
        add(m, "mget", -2, fastRead, 1, -1, 1, "Atomically returns the string values of one or more keys.",
            "string");
        add(m, "mset", -3, List.of("write", "denyoom"), 1, -1, 2, "Sets the string values of one or more keys.",
            "string");
        add(m, "del", -2, write, 1, -1, 1, "Deletes one or more keys.", "generic");
        add(m, "unlink", -2, List.of("write", "fast"), 1, -1, 1, "Deletes one or more keys.", "generic");
        add(m, "exists", -2, fastRead, 1, -1, 1, "Determines whether one or more keys exist.", "generic");
        add(m, "incr", 2, List.of("write", "denyoom", "fast"), 1, 1, 1,
            "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", "string");
        add(m, "decr", 2, List.of("write", "denyoom", "fast"), 1, 1, 1,
            "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.", "string");
        add(m, "incrby", 3, List.of("write", "denyoom", "fast"), 1, 1, 1,
            "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
            "string");
        add(m, "decrby", 3, List.of("write", "denyoom", "fast"), 1, 1, 1,
            "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.",
            "string");
        add(m, "expire", -3, List.of("write", "fast"), 1, 1, 1, "Sets the expiration time of a key in seconds.",
            "generic");
        add(m, "pexpire", -3, List.of("write", "fast"), 1, 1, 1, "Sets the expiration time of a key in milliseconds.",
            "generic");
        add(m, "expireat", -3, List.of("write", "fast"), 1, 1, 1,
            "Sets the expiration time of a key to a Unix timestamp.", "generic");
        add(m, "pexpireat", -3, List.of("write", "fast"), 1, 1, 1,
            "Sets the expiration time of a key to a Unix milliseconds timestamp.", "generic");
        add(m, "ttl", 2, List.of("readonly", "fast"), 1, 1, 1, "Returns the expiration time in seconds of a key.",
            "generic");
        add(m, "pttl", 2, List.of("readonly", "fast"), 1, 1, 1,
            "Returns the expiration time in milliseconds of a key.", "generic");
        add(m, "persist", 2, List.of("write", "fast"), 1, 1, 1, "Removes the expiration time of a key.", "generic");
        add(m, "scan", -2, List.of("readonly"), 0, 0, 0, "Iterates over the key names in the database.",
            "generic");
        add(m, "dbsize", 1, fastRead, 0, 0, 0, "Returns the number of keys in the database.", "server");
        add(m, "info", -1, List.of("loading", "stale"), 0, 0, 0, "Returns information and statistics about the " +
            "server.", "server");
        add(m, "cluster", -2, List.of("loading", "stale"), 0, 0, 0, "KEYSLOT, SLOTS, SHARDS, NODES, MYID, INFO of " +
            "the cluster map.", "cluster");
        add(m, "command", -1, List.of("loading", "stale"), 0, 0, 0, "Returns detailed information about all " +
            "commands.", "server");
        return java.util.Collections.unmodifiableMap(m);
    }

    private static void add(final Map<String, Spec> m, final String name, final int arity, final List<String> flags,
        final int first, final int last, final int step, final String summary, final String group)
    {
        m.put(name, new Spec(name, arity, flags, first, last, step, summary, group));
    }
}

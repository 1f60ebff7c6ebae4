package io.rdmakv.server.resp;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;

/**
 * The key commands: each becomes binary GET, PUT or DELETE requests of the connection's {@link RespEndpoint}, and its
 * reply is built when the node answered them all (after the WAL write, and the backups in a cluster).
 */
final class StoreCommands
{
    /** Where a command's requests go: the connection, which numbers them and matches their answers. */
    @FunctionalInterface
    interface StoreCalls
    {
        /** Send request {@code index} of {@code reply}: GET or DELETE of {@code key}, or PUT with {@code value}. */
        void send(PendingReply reply, int index, MessageType type, byte[] key, byte[] value);
    }

    /** SET options Redis has that need expiry or conditional writes (issue 32): refused by name. */
    static final Set<String> UNSUPPORTED_SET_OPTIONS = Set.of("ex", "px", "exat", "pxat", "nx", "xx", "keepttl",
        "get");

    private final int maxKeyBytes;
    private final int maxValueBytes;
    private final RespCluster cluster;

    StoreCommands(final int maxKeyBytes, final int maxValueBytes, final RespCluster cluster)
    {
        this.maxKeyBytes = maxKeyBytes;
        this.maxValueBytes = maxValueBytes;
        this.cluster = cluster;
    }

    /** GET, SET, GETDEL, DEL, UNLINK, EXISTS, MGET or MSET ({@code name} lower case, arity already checked). */
    PendingReply execute(final String name, final byte[][] args, final StoreCalls calls)
    {
        final String limit = checkSizes(name, args);
        if (limit != null)
        {
            return PendingReply.ready(RespReply.error(limit));
        }
        // The key of request i, for a WRONG_NODE answer's redirect.
        final IntFunction<byte[]> keyOf = switch (name)
        {
            case "get", "set", "getdel" -> i -> args[1];
            case "mset" -> i -> args[1 + 2 * i];
            default -> i -> args[1 + i];
        };
        return switch (name)
        {
            case "get" -> one(calls, MessageType.GET_REQUEST, args[1], null, (st, p) -> valueReply(st, p, keyOf));
            case "set" -> set(args, calls, keyOf);
            case "getdel" -> getDel(args[1], calls, keyOf);
            case "del", "unlink" -> each(args, MessageType.DELETE_REQUEST, calls, (st, p) -> countFound(st, p, keyOf));
            case "exists" -> each(args, MessageType.GET_REQUEST, calls, (st, p) -> countFound(st, p, keyOf));
            case "mget" -> each(args, MessageType.GET_REQUEST, calls, (st, p) -> values(st, p, keyOf));
            case "mset" -> mset(args, calls, keyOf);
            default -> throw new IllegalArgumentException(name);
        };
    }

    private String checkSizes(final String name, final byte[][] args)
    {
        final boolean pairs = name.equals("mset") || name.equals("set");
        for (int i = 1; i < args.length; i++)
        {
            final boolean isValue = pairs && (name.equals("set") ? i == 2 : i % 2 == 0);
            if (!isValue && name.equals("set") && i > 2)
            {
                continue; // options
            }
            final int max = isValue ? maxValueBytes : maxKeyBytes;
            if (args[i].length > max)
            {
                return "ERR " + (isValue ? "value" : "key") + " of " + args[i].length + " bytes exceeds the limit of " +
                    max + (isValue ? " (limits.maxValueBytes)" : " (limits.maxKeyBytes)");
            }
            if (!isValue && args[i].length == 0)
            {
                return "ERR empty keys are not supported by rdmakv";
            }
        }
        return null;
    }

    private PendingReply set(final byte[][] args, final StoreCalls calls, final IntFunction<byte[]> keyOf)
    {
        for (int i = 3; i < args.length; i++)
        {
            final String option = CommandTable.lower(args[i]);
            if (UNSUPPORTED_SET_OPTIONS.contains(option))
            {
                return PendingReply.ready(RespReply.error("ERR SET option '" + option.toUpperCase(java.util.Locale.ROOT) +
                    "' is not supported by rdmakv yet (no expiry or conditional writes; see docs/resp.md)"));
            }
            return PendingReply.ready(RespReply.error("ERR syntax error"));
        }
        return one(calls, MessageType.PUT_REQUEST, args[1], args[2], (st, p) -> okReply(st, p, keyOf));
    }

    /** GET then DELETE of the key on the request thread, one after the other (not one atomic step: docs/resp.md). */
    private PendingReply getDel(final byte[] key, final StoreCalls calls, final IntFunction<byte[]> keyOf)
    {
        final PendingReply reply = PendingReply.waitingFor(2, (statuses, payloads) ->
        {
            final RespReply failed = firstFailure(statuses, payloads, keyOf);
            if (failed != null)
            {
                return failed;
            }
            return statuses[0] == Status.OK && statuses[1] == Status.OK ? RespReply.bulk(orEmpty(payloads[0])) :
                RespReply.NULL;
        });
        calls.send(reply, 0, MessageType.GET_REQUEST, key, null);
        calls.send(reply, 1, MessageType.DELETE_REQUEST, key, null);
        return reply;
    }

    private PendingReply mset(final byte[][] args, final StoreCalls calls, final IntFunction<byte[]> keyOf)
    {
        if (args.length % 2 == 0)
        {
            return PendingReply.ready(RespReply.error("ERR wrong number of arguments for 'mset' command"));
        }
        final int pairs = (args.length - 1) / 2;
        final PendingReply reply = PendingReply.waitingFor(pairs, (st, p) -> okReply(st, p, keyOf));
        for (int i = 0; i < pairs; i++)
        {
            calls.send(reply, i, MessageType.PUT_REQUEST, args[1 + 2 * i], args[2 + 2 * i]);
        }
        return reply;
    }

    private static PendingReply one(final StoreCalls calls, final MessageType type, final byte[] key,
        final byte[] value, final PendingReply.Combiner combiner)
    {
        final PendingReply reply = PendingReply.waitingFor(1, combiner);
        calls.send(reply, 0, type, key, value);
        return reply;
    }

    /** One request of {@code type} per key, every argument after the name being a key. */
    private static PendingReply each(final byte[][] args, final MessageType type, final StoreCalls calls,
        final PendingReply.Combiner combiner)
    {
        final PendingReply reply = PendingReply.waitingFor(args.length - 1, combiner);
        for (int i = 1; i < args.length; i++)
        {
            calls.send(reply, i - 1, type, args[i], null);
        }
        return reply;
    }

    private RespReply valueReply(final Status[] statuses, final byte[][] payloads, final IntFunction<byte[]> keyOf)
    {
        if (statuses[0] == Status.NOT_FOUND)
        {
            return RespReply.NULL;
        }
        return statuses[0] == Status.OK ? RespReply.bulk(orEmpty(payloads[0])) :
            error(statuses[0], payloads[0], keyOf.apply(0));
    }

    private RespReply okReply(final Status[] statuses, final byte[][] payloads, final IntFunction<byte[]> keyOf)
    {
        final RespReply failed = firstFailure(statuses, payloads, keyOf);
        return failed != null ? failed : RespReply.OK;
    }

    private RespReply countFound(final Status[] statuses, final byte[][] payloads, final IntFunction<byte[]> keyOf)
    {
        final RespReply failed = firstFailure(statuses, payloads, keyOf);
        if (failed != null)
        {
            return failed;
        }
        long found = 0;
        for (final Status s : statuses)
        {
            found += s == Status.OK ? 1 : 0;
        }
        return RespReply.integer(found);
    }

    private RespReply values(final Status[] statuses, final byte[][] payloads, final IntFunction<byte[]> keyOf)
    {
        final RespReply failed = firstFailure(statuses, payloads, keyOf);
        if (failed != null)
        {
            return failed;
        }
        final List<RespReply> items = new ArrayList<>(statuses.length);
        for (int i = 0; i < statuses.length; i++)
        {
            items.add(statuses[i] == Status.OK ? RespReply.bulk(orEmpty(payloads[i])) : RespReply.NULL);
        }
        return RespReply.array(items);
    }

    /** The first answer that is neither OK nor NOT_FOUND, as an error reply; null when there is none. */
    private RespReply firstFailure(final Status[] statuses, final byte[][] payloads, final IntFunction<byte[]> keyOf)
    {
        for (int i = 0; i < statuses.length; i++)
        {
            if (statuses[i] != Status.OK && statuses[i] != Status.NOT_FOUND)
            {
                return error(statuses[i], payloads[i], keyOf.apply(i));
            }
        }
        return null;
    }

    /**
     * A refusal of the node as a Redis error: WRONG_NODE as {@code -MOVED} to the slot's primary in the newest map,
     * anything else {@code ERR} with the node's status and reason.
     */
    private RespReply error(final Status status, final byte[] payload, final byte[] key)
    {
        if (status == Status.WRONG_NODE)
        {
            return cluster.wrongNode(key);
        }
        final String text = payload == null ? "" : new String(payload, StandardCharsets.UTF_8);
        return RespReply.error("ERR " + status.name() + (text.isEmpty() ? "" : ": " + text));
    }

    private static byte[] orEmpty(final byte[] value)
    {
        return value == null ? new byte[0] : value;
    }
}

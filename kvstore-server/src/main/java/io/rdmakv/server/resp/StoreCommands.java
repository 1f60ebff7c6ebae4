package io.rdmakv.server.resp;

import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.Status;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

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

    StoreCommands(final int maxKeyBytes, final int maxValueBytes)
    {
        this.maxKeyBytes = maxKeyBytes;
        this.maxValueBytes = maxValueBytes;
    }

    /** GET, SET, GETDEL, DEL, UNLINK, EXISTS, MGET or MSET ({@code name} lower case, arity already checked). */
    PendingReply execute(final String name, final byte[][] args, final StoreCalls calls)
    {
        final String limit = checkSizes(name, args);
        if (limit != null)
        {
            return PendingReply.ready(RespReply.error(limit));
        }
        return switch (name)
        {
            case "get" -> one(calls, MessageType.GET_REQUEST, args[1], null, StoreCommands::valueReply);
            case "set" -> set(args, calls);
            case "getdel" -> getDel(args[1], calls);
            case "del", "unlink" -> each(args, 1, 1, MessageType.DELETE_REQUEST, calls, StoreCommands::countFound);
            case "exists" -> each(args, 1, 1, MessageType.GET_REQUEST, calls, StoreCommands::countFound);
            case "mget" -> each(args, 1, 1, MessageType.GET_REQUEST, calls, StoreCommands::values);
            case "mset" -> mset(args, calls);
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

    private static PendingReply set(final byte[][] args, final StoreCalls calls)
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
        return one(calls, MessageType.PUT_REQUEST, args[1], args[2], StoreCommands::okReply);
    }

    /** GET then DELETE of the key on the request thread, one after the other (not one atomic step: docs/resp.md). */
    private static PendingReply getDel(final byte[] key, final StoreCalls calls)
    {
        final PendingReply reply = PendingReply.waitingFor(2, (statuses, payloads) ->
        {
            final RespReply failed = firstFailure(statuses, payloads);
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

    private static PendingReply mset(final byte[][] args, final StoreCalls calls)
    {
        if (args.length % 2 == 0)
        {
            return PendingReply.ready(RespReply.error("ERR wrong number of arguments for 'mset' command"));
        }
        final int pairs = (args.length - 1) / 2;
        final PendingReply reply = PendingReply.waitingFor(pairs, StoreCommands::okReply);
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

    private static PendingReply each(final byte[][] args, final int from, final int step, final MessageType type,
        final StoreCalls calls, final PendingReply.Combiner combiner)
    {
        final int count = (args.length - from + step - 1) / step;
        final PendingReply reply = PendingReply.waitingFor(count, combiner);
        for (int i = 0; i < count; i++)
        {
            calls.send(reply, i, type, args[from + i * step], null);
        }
        return reply;
    }

    private static RespReply valueReply(final Status[] statuses, final byte[][] payloads)
    {
        if (statuses[0] == Status.NOT_FOUND)
        {
            return RespReply.NULL;
        }
        return statuses[0] == Status.OK ? RespReply.bulk(orEmpty(payloads[0])) : error(statuses[0], payloads[0]);
    }

    private static RespReply okReply(final Status[] statuses, final byte[][] payloads)
    {
        final RespReply failed = firstFailure(statuses, payloads);
        return failed != null ? failed : RespReply.OK;
    }

    private static RespReply countFound(final Status[] statuses, final byte[][] payloads)
    {
        final RespReply failed = firstFailure(statuses, payloads);
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

    private static RespReply values(final Status[] statuses, final byte[][] payloads)
    {
        final RespReply failed = firstFailure(statuses, payloads);
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
    private static RespReply firstFailure(final Status[] statuses, final byte[][] payloads)
    {
        for (int i = 0; i < statuses.length; i++)
        {
            if (statuses[i] != Status.OK && statuses[i] != Status.NOT_FOUND)
            {
                return error(statuses[i], payloads[i]);
            }
        }
        return null;
    }

    /** A refusal of the node as a Redis error: {@code ERR} and the node's reason (a WRONG_NODE names the owner). */
    static RespReply error(final Status status, final byte[] payload)
    {
        final String text = payload == null ? "" : new String(payload, StandardCharsets.UTF_8);
        if (status == Status.WRONG_NODE)
        {
            return RespReply.error("ERR this node does not serve the key's slot now (owner or retry: " + text +
                "); Redis Cluster redirects are not offered yet (docs/resp.md)");
        }
        return RespReply.error("ERR " + status.name() + (text.isEmpty() ? "" : ": " + text));
    }

    private static byte[] orEmpty(final byte[] value)
    {
        return value == null ? new byte[0] : value;
    }
}

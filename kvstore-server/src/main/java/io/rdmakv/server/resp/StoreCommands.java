package io.rdmakv.server.resp;

import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.LongSupplier;

/**
 * The key commands: each becomes binary GET, PUT or DELETE requests of the connection's {@link RespEndpoint}, and its
 * reply is built when the node answered them all (after the WAL write, and the backups in a cluster).
 */
final class StoreCommands
{
    /** Where a command's requests go: the connection, which numbers them and matches their answers. */
    interface StoreCalls
    {
        /** Send request {@code index} of {@code reply}: GET or DELETE of {@code key}, or PUT with {@code value}. */
        void send(PendingReply reply, int index, MessageType type, byte[] key, byte[] value);

        /**
         * Send request {@code index} of {@code reply}: a RECORD_WRITE of {@code key} ({@code op} one of
         * {@link RecordWriteRequestFlyweight}'s; its TTL read waits for the connection's writes as a GET does).
         */
        void record(PendingReply reply, int index, int op, long expectedVersion, long argument, byte[] key,
            byte[] value);

        /**
         * Send request {@code index} of {@code reply}: an atomic BATCH_WRITE of {@code count} encoded entries whose
         * keys share {@code firstKey}'s hash slot.
         */
        void batch(PendingReply reply, int index, byte[] firstKey, byte[] entries, int count);
    }

    /** SET options Redis has that rdmakv does not serve yet: refused by name. */
    static final Set<String> UNSUPPORTED_SET_OPTIONS = Set.of("xx", "keepttl", "get");

    /** The commands that name one key (argument 1) and then numbers, not keys. */
    private static final Set<String> ONE_KEY_THEN_NUMBERS = Set.of("incr", "decr", "incrby", "decrby", "expire",
        "pexpire", "expireat", "pexpireat", "ttl", "pttl", "persist");
    private static final String NOT_AN_INTEGER = "ERR value is not an integer or out of range";

    private final int maxKeyBytes;
    private final int maxValueBytes;
    private final RespCluster cluster;
    /** The node's clock (ms since the epoch): relative expiries (EX, PX, EXPIRE) and TTL's remaining time. */
    private final LongSupplier clockMillis;

    StoreCommands(final int maxKeyBytes, final int maxValueBytes, final RespCluster cluster)
    {
        this(maxKeyBytes, maxValueBytes, cluster, System::currentTimeMillis);
    }

    StoreCommands(final int maxKeyBytes, final int maxValueBytes, final RespCluster cluster,
        final LongSupplier clockMillis)
    {
        this.maxKeyBytes = maxKeyBytes;
        this.maxValueBytes = maxValueBytes;
        this.cluster = cluster;
        this.clockMillis = clockMillis;
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
            case "incr" -> counter(args[1], 1, calls, keyOf);
            case "decr" -> counter(args[1], -1, calls, keyOf);
            case "incrby", "decrby" -> counterBy(name, args, calls, keyOf);
            case "expire", "pexpire", "expireat", "pexpireat" -> expire(name, args, calls, keyOf);
            case "ttl", "pttl" -> ttl(name.equals("pttl"), args[1], calls, keyOf);
            case "persist" -> record(calls, RecordWriteRequestFlyweight.OP_PERSIST, 0, args[1], null,
                (st, p) -> st[0] == Status.OK ? RespReply.integer(1) : st[0] == Status.NOT_FOUND ? RespReply.integer(0)
                    : error(st[0], p[0], keyOf.apply(0)));
            default -> throw new IllegalArgumentException(name);
        };
    }

    private String checkSizes(final String name, final byte[][] args)
    {
        final boolean pairs = name.equals("mset") || name.equals("set");
        for (int i = 1; i < args.length; i++)
        {
            final boolean isValue = pairs && (name.equals("set") ? i == 2 : i % 2 == 0);
            if (!isValue && name.equals("set") && i > 2 || ONE_KEY_THEN_NUMBERS.contains(name) && i > 1)
            {
                continue; // options, numbers
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

    /**
     * SET key value [EX s | PX ms | EXAT unix-s | PXAT unix-ms] [NX]: a plain PUT without options; with an expiry or NX
     * one RECORD_WRITE (PUT or PUT_IF_ABSENT with the absolute expiry), nil when NX finds the key (Redis's answer).
     */
    private PendingReply set(final byte[][] args, final StoreCalls calls, final IntFunction<byte[]> keyOf)
    {
        long expiry = 0;
        boolean expirySet = false;
        boolean ifAbsent = false;
        for (int i = 3; i < args.length; i++)
        {
            final String option = CommandTable.lower(args[i]);
            if (UNSUPPORTED_SET_OPTIONS.contains(option))
            {
                return PendingReply.ready(RespReply.error("ERR SET option '" + option.toUpperCase(java.util.Locale.ROOT) +
                    "' is not supported by rdmakv yet (see docs/resp.md)"));
            }
            if (option.equals("nx"))
            {
                ifAbsent = true;
                continue;
            }
            final boolean expiryOption = option.equals("ex") || option.equals("px") || option.equals("exat") ||
                option.equals("pxat");
            if (!expiryOption || expirySet || i + 1 >= args.length)
            {
                return PendingReply.ready(RespReply.error("ERR syntax error"));
            }
            final Long n = parseLong(args[++i]);
            if (n == null)
            {
                return PendingReply.ready(RespReply.error(NOT_AN_INTEGER));
            }
            expiry = absoluteExpiry(option, n);
            if (n <= 0 || expiry <= 0)
            {
                return PendingReply.ready(RespReply.error("ERR invalid expire time in 'set' command"));
            }
            expirySet = true;
        }
        if (!expirySet && !ifAbsent)
        {
            return one(calls, MessageType.PUT_REQUEST, args[1], args[2], (st, p) -> okReply(st, p, keyOf));
        }
        return record(calls, ifAbsent ? RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT : RecordWriteRequestFlyweight.OP_PUT,
            expiry, args[1], args[2], (st, p) -> st[0] == Status.CONDITION_FAILED ? RespReply.NULL :
                okReply(st, p, keyOf));
    }

    /**
     * The absolute expiry (ms since the epoch) of {@code n} in unit {@code option} (ex, px, exat, pxat, and EXPIRE's
     * names); {@code -1} when it overflows (Redis: invalid expire time).
     */
    private long absoluteExpiry(final String option, final long n)
    {
        try
        {
            return switch (option)
            {
                case "ex", "expire" -> Math.addExact(clockMillis.getAsLong(), Math.multiplyExact(n, 1000L));
                case "px", "pexpire" -> Math.addExact(clockMillis.getAsLong(), n);
                case "exat", "expireat" -> Math.multiplyExact(n, 1000L);
                default -> n; // pxat, pexpireat
            };
        }
        catch (final ArithmeticException ex)
        {
            return -1;
        }
    }

    /** INCR and DECR ({@code delta} 1 or -1), INCRBY and DECRBY: one INCREMENT; the new value as an integer. */
    private PendingReply counter(final byte[] key, final long delta, final StoreCalls calls,
        final IntFunction<byte[]> keyOf)
    {
        return record(calls, RecordWriteRequestFlyweight.OP_INCREMENT, delta, key, null, (st, p) ->
        {
            if (st[0] == Status.NOT_AN_INTEGER)
            {
                return RespReply.error(NOT_AN_INTEGER);
            }
            if (st[0] != Status.OK)
            {
                return error(st[0], p[0], keyOf.apply(0));
            }
            final byte[] answer = p[0];
            if (answer == null || answer.length <= ResponseFlyweight.WRITTEN_LENGTH)
            {
                // A retry answered from its record carries no value; RESP sends no write ids, so this is not expected.
                return RespReply.error("ERR the increment was applied but its new value is unknown: read the key");
            }
            return RespReply.integer(Long.parseLong(new String(answer, ResponseFlyweight.WRITTEN_LENGTH,
                answer.length - ResponseFlyweight.WRITTEN_LENGTH, StandardCharsets.US_ASCII)));
        });
    }

    private PendingReply counterBy(final String name, final byte[][] args, final StoreCalls calls,
        final IntFunction<byte[]> keyOf)
    {
        final Long n = parseLong(args[2]);
        if (n == null)
        {
            return PendingReply.ready(RespReply.error(NOT_AN_INTEGER));
        }
        if (name.equals("decrby") && n == Long.MIN_VALUE)
        {
            return PendingReply.ready(RespReply.error("ERR decrement would overflow"));
        }
        return counter(args[1], name.equals("decrby") ? -n : n, calls, keyOf);
    }

    /**
     * EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT key n: 1 when the key exists (a time in the past expires it at once, as
     * Redis deletes it), 0 when it does not. The NX, XX, GT and LT options are refused.
     */
    private PendingReply expire(final String name, final byte[][] args, final StoreCalls calls,
        final IntFunction<byte[]> keyOf)
    {
        if (args.length > 3)
        {
            return PendingReply.ready(RespReply.error("ERR " + name.toUpperCase(java.util.Locale.ROOT) +
                " options NX, XX, GT and LT are not supported by rdmakv yet"));
        }
        final Long n = parseLong(args[2]);
        if (n == null)
        {
            return PendingReply.ready(RespReply.error(NOT_AN_INTEGER));
        }
        final long at = absoluteExpiry(name, n);
        if (at == -1 && n > 0)
        {
            return PendingReply.ready(RespReply.error("ERR invalid expire time in '" + name + "' command"));
        }
        return record(calls, RecordWriteRequestFlyweight.OP_EXPIRE, Math.max(1, at), args[1], null,
            (st, p) -> st[0] == Status.OK ? RespReply.integer(1) : st[0] == Status.NOT_FOUND ? RespReply.integer(0) :
                error(st[0], p[0], keyOf.apply(0)));
    }

    /** TTL (seconds, rounded as Redis does) or PTTL: -2 when the key is absent (or expired), -1 without expiry. */
    private PendingReply ttl(final boolean millis, final byte[] key, final StoreCalls calls,
        final IntFunction<byte[]> keyOf)
    {
        return record(calls, RecordWriteRequestFlyweight.OP_TTL, 0, key, null, (st, p) ->
        {
            if (st[0] == Status.NOT_FOUND)
            {
                return RespReply.integer(-2);
            }
            if (st[0] != Status.OK || p[0] == null || p[0].length < Long.BYTES)
            {
                return error(st[0], p[0], keyOf.apply(0));
            }
            final long expiry = java.nio.ByteBuffer.wrap(p[0]).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
            if (expiry == 0)
            {
                return RespReply.integer(-1);
            }
            final long remaining = expiry - clockMillis.getAsLong();
            if (remaining <= 0)
            {
                return RespReply.integer(-2);
            }
            return RespReply.integer(millis ? remaining : (remaining + 500) / 1000);
        });
    }

    private static PendingReply record(final StoreCalls calls, final int op, final long argument, final byte[] key,
        final byte[] value, final PendingReply.Combiner combiner)
    {
        final PendingReply reply = PendingReply.waitingFor(1, combiner);
        calls.record(reply, 0, op, 0, argument, key, value);
        return reply;
    }

    /** A decimal int64 as Redis reads one (no sign but '-', no spaces), or null. */
    private static Long parseLong(final byte[] arg)
    {
        final String text = new String(arg, StandardCharsets.US_ASCII);
        if (text.isEmpty() || text.startsWith("+") || text.length() > 20)
        {
            return null;
        }
        try
        {
            return Long.parseLong(text);
        }
        catch (final NumberFormatException ex)
        {
            return null;
        }
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
        if (pairs > 1 && oneSlot(args))
        {
            return atomicMset(args, pairs, calls, keyOf);
        }
        final PendingReply reply = PendingReply.waitingFor(pairs, (st, p) -> okReply(st, p, keyOf));
        for (int i = 0; i < pairs; i++)
        {
            calls.send(reply, i, MessageType.PUT_REQUEST, args[1 + 2 * i], args[2 + 2 * i]);
        }
        return reply;
    }

    /** Whether every key of MSET's pairs hashes to one slot. */
    private static boolean oneSlot(final byte[][] args)
    {
        final int slot = KeyHash.hashSlot(args[1]);
        for (int i = 3; i < args.length; i += 2)
        {
            if (KeyHash.hashSlot(args[i]) != slot)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * MSET of keys of one slot: one atomic BATCH_WRITE (all or nothing, as Redis's MSET), refused whole when it
     * exceeds what one batch carries rather than applied in parts.
     */
    private PendingReply atomicMset(final byte[][] args, final int pairs, final StoreCalls calls,
        final IntFunction<byte[]> keyOf)
    {
        final List<byte[]> keys = new ArrayList<>(pairs);
        final List<byte[]> values = new ArrayList<>(pairs);
        long length = 0;
        for (int i = 0; i < pairs; i++)
        {
            keys.add(args[1 + 2 * i]);
            values.add(args[2 + 2 * i]);
            length += BatchWriteRequestFlyweight.ENTRY_HEADER_LENGTH + BatchWriteRequestFlyweight.RECORD_HEADER_LENGTH +
                args[1 + 2 * i].length + args[2 + 2 * i].length;
        }
        if (pairs > BatchWriteRequestFlyweight.MAX_ENTRIES || length > (long)maxKeyBytes + maxValueBytes)
        {
            return PendingReply.ready(RespReply.error("ERR MSET of " + pairs + " keys in one hash slot (" + length +
                " bytes) exceeds one atomic batch (at most " + BatchWriteRequestFlyweight.MAX_ENTRIES + " keys and " +
                ((long)maxKeyBytes + maxValueBytes) + " bytes, 26 per key counted): split it"));
        }
        final PendingReply reply = PendingReply.waitingFor(1, (st, p) -> okReply(st, p, keyOf));
        calls.batch(reply, 0, args[1], BatchWriteRequestFlyweight.encodeEntries(keys, values), pairs);
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

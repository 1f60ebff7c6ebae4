package io.rdmakv.server.resp;

import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.wire.KeyScanPage;
import io.rdmakv.protocol.wire.KeyScanRequestFlyweight;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.BatchWriteRequestFlyweight;
import io.rdmakv.protocol.wire.MessageType;
import io.rdmakv.protocol.wire.RecordWriteRequestFlyweight;
import io.rdmakv.protocol.wire.ResponseFlyweight;
import io.rdmakv.protocol.wire.Status;
import io.rdmakv.server.session.Access;
import org.agrona.concurrent.UnsafeBuffer;

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
        /**
         * Send request {@code index} of {@code reply}: GET or DELETE of {@code key}, PUT with {@code value}, or
         * KEY_SCAN ({@code key} null, {@code value} the request's body).
         */
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

    /** The commands that name one key (argument 1) and then numbers, not keys. */
    private static final Set<String> ONE_KEY_THEN_NUMBERS = Set.of("incr", "decr", "incrby", "decrby", "expire",
        "pexpire", "expireat", "pexpireat", "ttl", "pttl", "persist");
    private static final String NOT_AN_INTEGER = "ERR value is not an integer or out of range";
    private static final String SYNTAX = "ERR syntax error";
    /**
     * A command of several steps (SET with XX, KEEPTTL or GET; GETDEL; PERSIST) starts again when the key changed
     * between its read and its conditional write; it gives up with an error (nothing written) once it started again
     * this many times and {@link #GIVE_UP_NANOS} passed. Both bounds, because a GET may be answered from the pool,
     * which on a primary follows a write only once its backups have it: until then the write is refused on the
     * version read, and the command reads again, quickly, for as long as the replication round trip takes.
     */
    static final int MAX_ATTEMPTS = 1_000;
    static final long GIVE_UP_NANOS = 2_000_000_000L;
    private static final byte[] NONE = new byte[0];

    private final int maxKeyBytes;
    private final int maxValueBytes;
    private final RespCluster cluster;
    private final ScanCursors cursors = new ScanCursors();
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
            case "getdel" -> new GetDel(calls, args[1]).start();
            case "del", "unlink" -> each(args, MessageType.DELETE_REQUEST, calls, (st, p) -> countFound(st, p, keyOf));
            case "exists" -> each(args, MessageType.GET_REQUEST, calls, (st, p) -> countFound(st, p, keyOf));
            case "mget" -> each(args, MessageType.GET_REQUEST, calls, (st, p) -> values(st, p, keyOf));
            case "mset" -> mset(args, calls, keyOf);
            case "incr" -> counter(args[1], 1, calls, keyOf);
            case "decr" -> counter(args[1], -1, calls, keyOf);
            case "incrby", "decrby" -> counterBy(name, args, calls, keyOf);
            case "expire", "pexpire", "expireat", "pexpireat" -> expire(name, args, calls, keyOf);
            case "ttl", "pttl" -> ttl(name.equals("pttl"), args[1], calls, keyOf);
            case "persist" -> new Persist(calls, args[1]).start();
            default -> throw new IllegalArgumentException(name);
        };
    }

    /**
     * SCAN cursor [MATCH pattern] [COUNT n] [TYPE type]: one KEY_SCAN page of the hash slots this node is the primary
     * of, from the cursor's position ({@link ScanCursors}): at most {@code n} keys (default 10, as Redis) and at most
     * {@code KeyScans.MAX_EXAMINED} keys examined, so a page may be empty before the end, as Redis's may. Expired keys
     * are in no page. The reply is Redis's: the next cursor (0: the end) and the keys; keys outside the prefixes of
     * the connection's user are left out. Every key is a string, so {@code TYPE} other than {@code string} ends at
     * once with no keys.
     */
    PendingReply scan(final Access access, final byte[][] args, final StoreCalls calls)
    {
        final long cursor;
        try
        {
            cursor = parseCursor(args[1]);
        }
        catch (final NumberFormatException ex)
        {
            return PendingReply.ready(RespReply.error(INVALID_CURSOR));
        }
        int count = 10;
        byte[] match = NONE;
        boolean otherType = false;
        for (int i = 2; i < args.length; i += 2)
        {
            if (i + 1 >= args.length)
            {
                return PendingReply.ready(RespReply.error(SYNTAX));
            }
            final String option = CommandTable.lower(args[i]);
            if (option.equals("count"))
            {
                final Long n = parseLong(args[i + 1]);
                if (n == null)
                {
                    return PendingReply.ready(RespReply.error(NOT_AN_INTEGER));
                }
                if (n < 1)
                {
                    return PendingReply.ready(RespReply.error(SYNTAX));
                }
                count = (int)Math.min(n, KeyScanRequestFlyweight.MAX_COUNT);
            }
            else if (option.equals("match"))
            {
                match = args[i + 1];
            }
            else if (option.equals("type"))
            {
                otherType = !CommandTable.lower(args[i + 1]).equals("string");
            }
            else
            {
                return PendingReply.ready(RespReply.error(SYNTAX));
            }
        }
        final ScanCursors.Position at = cursors.resume(cursor);
        if (at == null)
        {
            return PendingReply.ready(RespReply.error(INVALID_CURSOR));
        }
        final int hashSlot = cluster.nextLocalSlot(at.hashSlot());
        if (otherType || hashSlot < 0)
        {
            return PendingReply.ready(scanReply(0, List.of()));
        }
        final byte[] from = hashSlot == at.hashSlot() ? at.afterKey() : NONE;
        final byte[] body;
        try
        {
            body = KeyScanRequestFlyweight.body(hashSlot, ProtocolLimits.HASH_SLOT_COUNT - 1, count, 0, from, NONE,
                "*".equals(new String(match, StandardCharsets.ISO_8859_1)) ? NONE : match);
        }
        catch (final IllegalArgumentException ex)
        {
            return PendingReply.ready(RespReply.error("ERR " + ex.getMessage()));
        }
        final PendingReply reply = PendingReply.waitingFor(1, (st, p) -> scanPage(access, hashSlot, from, st[0], p[0]));
        calls.send(reply, 0, MessageType.KEY_SCAN_REQUEST, null, body);
        return reply;
    }

    private static final String INVALID_CURSOR = "ERR invalid cursor";

    /** A cursor as Redis reads one: an unsigned 64-bit decimal. */
    static long parseCursor(final byte[] arg)
    {
        final String text = new String(arg, StandardCharsets.US_ASCII);
        if (text.isEmpty() || text.length() > 20 || !text.chars().allMatch(c -> c >= '0' && c <= '9'))
        {
            throw new NumberFormatException(text);
        }
        return Long.parseUnsignedLong(text);
    }

    /** The reply to a KEY_SCAN from {@code slot} after key {@code from}: its keys and its resume point's cursor. */
    private RespReply scanPage(final Access access, final int hashSlot, final byte[] from, final Status status,
        final byte[] payload)
    {
        if (status == Status.WRONG_NODE)
        {
            // The node does not serve the slot now: its lease lapsed (a late renewal on a loaded host), or the slot
            // moved and the map here does not show it yet. No key, the same position: the next call tries again, and
            // once the map shows the slot elsewhere it skips to this node's next slot (the keys are the new primary's).
            // Skipping the slot at once lost its keys whenever a lease lapsed during a scan.
            return scanReply(next(hashSlot, from), List.of());
        }
        if (status != Status.OK)
        {
            return error(status, payload, null);
        }
        final KeyScanPage.Decoded page = KeyScanPage.read(new UnsafeBuffer(payload), 0, payload.length, false);
        final List<byte[]> keys = new ArrayList<>(page.keys().size());
        for (final byte[] k : page.keys())
        {
            if (access.unlimited() || access.covers(new UnsafeBuffer(k), 0, k.length))
            {
                keys.add(k);
            }
        }
        return scanReply(next(page.nextSlot(), page.resumeKey()), keys);
    }

    /** The cursor resuming after {@code key} of {@code slot}; 0 when this node is the primary of no slot from there. */
    private long next(final int hashSlot, final byte[] key)
    {
        if (hashSlot >= ProtocolLimits.HASH_SLOT_COUNT || cluster.nextLocalSlot(hashSlot) < 0)
        {
            return 0;
        }
        return cursors.cursor(hashSlot, key);
    }

    private static RespReply scanReply(final long cursor, final List<byte[]> keys)
    {
        final List<RespReply> items = new ArrayList<>(keys.size());
        for (final byte[] k : keys)
        {
            items.add(RespReply.bulk(k));
        }
        return RespReply.array(List.of(RespReply.bulk(Long.toUnsignedString(cursor)), RespReply.array(items)));
    }

    /** SCAN's cursors (tests). */
    ScanCursors cursors()
    {
        return cursors;
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
     * SET key value [NX | XX] [GET] [EX s | PX ms | EXAT unix-s | PXAT unix-ms | KEEPTTL], options parsed as Redis
     * parses them (any order, any case; an option repeated is taken again; NX with XX, or KEEPTTL or another unit
     * with an expiry: {@code -ERR syntax error}, before the number is read). Without options a plain PUT; with an
     * expiry or NX one RECORD_WRITE (PUT, or PUT_IF_ABSENT, with the absolute expiry); XX, KEEPTTL and GET read the
     * key first and write only if its data version is still the one read ({@link SetAfterRead}, {@link SetGet}).
     */
    private PendingReply set(final byte[][] args, final StoreCalls calls, final IntFunction<byte[]> keyOf)
    {
        boolean nx = false;
        boolean xx = false;
        boolean get = false;
        boolean keepTtl = false;
        String unit = null;
        byte[] number = null;
        for (int i = 3; i < args.length; i++)
        {
            final String option = CommandTable.lower(args[i]);
            final boolean expiryOption = option.equals("ex") || option.equals("px") || option.equals("exat") ||
                option.equals("pxat");
            if (option.equals("nx") && !xx)
            {
                nx = true;
            }
            else if (option.equals("xx") && !nx)
            {
                xx = true;
            }
            else if (option.equals("get"))
            {
                get = true;
            }
            else if (option.equals("keepttl") && unit == null)
            {
                keepTtl = true;
            }
            else if (expiryOption && !keepTtl && (unit == null || unit.equals(option)) && i + 1 < args.length)
            {
                unit = option;
                number = args[++i];
            }
            else
            {
                return PendingReply.ready(RespReply.error(SYNTAX));
            }
        }
        long expiry = 0;
        if (unit != null)
        {
            final Long n = parseLong(number);
            if (n == null)
            {
                return PendingReply.ready(RespReply.error(NOT_AN_INTEGER));
            }
            expiry = absoluteExpiry(unit, n);
            if (n <= 0 || expiry <= 0)
            {
                return PendingReply.ready(RespReply.error("ERR invalid expire time in 'set' command"));
            }
        }
        if (get)
        {
            return new SetGet(calls, args[1], args[2], nx, xx, keepTtl, expiry).start();
        }
        if (xx || keepTtl && !nx)
        {
            return new SetAfterRead(calls, args[1], args[2], xx, keepTtl, expiry).start();
        }
        if (!nx && unit == null)
        {
            return one(calls, MessageType.PUT_REQUEST, args[1], args[2], (st, p) -> okReply(st, p, keyOf));
        }
        // NX (KEEPTTL changes nothing: the key NX writes had no expiry), or an expiry.
        return record(calls, nx ? RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT : RecordWriteRequestFlyweight.OP_PUT,
            expiry, args[1], args[2], (st, p) -> st[0] == Status.CONDITION_FAILED ? RespReply.NULL :
                okReply(st, p, keyOf));
    }

    /**
     * A command of several steps on one key (a read, then a write conditional on the data version read: atomic per
     * key on the primary, {@code RecordWrites}), started again from its read when the key changed in between.
     * The connection sends nothing of its later commands while one runs ({@link PendingReply#steps}).
     */
    private abstract class Chain implements PendingReply.Steps
    {
        final StoreCalls calls;
        final byte[] key;
        PendingReply reply;
        private final long startedNanos = System.nanoTime();
        private int attempts;

        Chain(final StoreCalls calls, final byte[] key)
        {
            this.calls = calls;
            this.key = key;
        }

        final PendingReply start()
        {
            reply = PendingReply.steps(this);
            begin();
            return reply;
        }

        /** The first step: a read of the key. */
        abstract void begin();

        /** The key changed between the read and the write: read again (null), or give up after too many. */
        final RespReply again()
        {
            if (++attempts >= MAX_ATTEMPTS && System.nanoTime() - startedNanos > GIVE_UP_NANOS)
            {
                return RespReply.error("ERR the key changed between this command's read and its write " +
                    attempts + " times in a row; nothing was written, retry");
            }
            begin();
            return null;
        }

        final void get()
        {
            calls.send(reply, 0, MessageType.GET_REQUEST, key, null);
        }

        final void ttl()
        {
            calls.record(reply, 0, RecordWriteRequestFlyweight.OP_TTL, 0, 0, key, null);
        }

        final RespReply write(final int op, final long expectedVersion, final long argument, final byte[] value)
        {
            calls.record(reply, 0, op, expectedVersion, argument, key, value);
            return null;
        }

        final RespReply failed(final Status status, final byte[] payload)
        {
            return error(status, payload, key);
        }
    }

    /** A TTL read's expiry (ms since the epoch, 0: none). */
    private static long expiryOf(final byte[] payload)
    {
        return payload == null || payload.length < Long.BYTES ? 0 :
            java.nio.ByteBuffer.wrap(payload).order(java.nio.ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /**
     * SET with XX or KEEPTTL (without GET): a TTL read (the data version and expiry, from RocksDB), then PUT_IF_VERSION
     * of that version with the new expiry or, KEEPTTL, the one read; a missing key: nil with XX, else PUT_IF_ABSENT.
     */
    private final class SetAfterRead extends Chain
    {
        private final byte[] value;
        private final boolean xx;
        private final boolean keepTtl;
        private final long expiry;
        private boolean writing;

        SetAfterRead(final StoreCalls calls, final byte[] key, final byte[] value, final boolean xx,
            final boolean keepTtl, final long expiry)
        {
            super(calls, key);
            this.value = value;
            this.xx = xx;
            this.keepTtl = keepTtl;
            this.expiry = expiry;
        }

        @Override
        void begin()
        {
            writing = false;
            ttl();
        }

        @Override
        public RespReply next(final Status status, final long version, final byte[] payload)
        {
            if (!writing)
            {
                writing = true;
                if (status == Status.NOT_FOUND)
                {
                    return xx ? RespReply.NULL : write(RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0, expiry, value);
                }
                if (status != Status.OK)
                {
                    return failed(status, payload);
                }
                return write(RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, version,
                    keepTtl ? expiryOf(payload) : expiry, value);
            }
            return status == Status.OK ? RespReply.OK : status == Status.CONDITION_FAILED ? again() :
                failed(status, payload);
        }
    }

    /**
     * SET ... GET: a GET (the old value and its data version), then, as NX and XX allow, PUT_IF_VERSION of that
     * version (KEEPTTL: after a TTL read of the same version) or PUT_IF_ABSENT; the reply is the old value, or nil.
     * NX on a present key answers its value and writes nothing, XX on a missing key answers nil (Redis 7).
     */
    private final class SetGet extends Chain
    {
        private final byte[] value;
        private final boolean nx;
        private final boolean xx;
        private final boolean keepTtl;
        private final long expiry;
        private int phase;
        private byte[] old;
        private long readVersion;

        SetGet(final StoreCalls calls, final byte[] key, final byte[] value, final boolean nx, final boolean xx,
            final boolean keepTtl, final long expiry)
        {
            super(calls, key);
            this.value = value;
            this.nx = nx;
            this.xx = xx;
            this.keepTtl = keepTtl;
            this.expiry = expiry;
        }

        @Override
        void begin()
        {
            phase = 0;
            get();
        }

        @Override
        public RespReply next(final Status status, final long version, final byte[] payload)
        {
            switch (phase)
            {
                case 0 -> // the GET
                {
                    phase = 2;
                    if (status == Status.NOT_FOUND)
                    {
                        old = null;
                        return xx ? RespReply.NULL : write(RecordWriteRequestFlyweight.OP_PUT_IF_ABSENT, 0,
                            keepTtl ? 0 : expiry, value);
                    }
                    if (status != Status.OK)
                    {
                        return failed(status, payload);
                    }
                    old = orEmpty(payload);
                    if (nx)
                    {
                        return RespReply.bulk(old);
                    }
                    readVersion = version;
                    if (keepTtl)
                    {
                        phase = 1;
                        ttl();
                        return null;
                    }
                    return write(RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, version, expiry, value);
                }
                case 1 -> // KEEPTTL's TTL read: the expiry of the version read
                {
                    if (status == Status.NOT_FOUND || status == Status.OK && version != readVersion)
                    {
                        return again();
                    }
                    phase = 2;
                    return status != Status.OK ? failed(status, payload) :
                        write(RecordWriteRequestFlyweight.OP_PUT_IF_VERSION, readVersion, expiryOf(payload), value);
                }
                default -> // the write
                {
                    if (status == Status.OK)
                    {
                        return old == null ? RespReply.NULL : RespReply.bulk(old);
                    }
                    return status == Status.CONDITION_FAILED ? again() : failed(status, payload);
                }
            }
        }
    }

    /**
     * GETDEL: a GET (value and data version), then DELETE_IF_VERSION of it; the value, or nil when absent.
     */
    private final class GetDel extends Chain
    {
        private byte[] old;

        GetDel(final StoreCalls calls, final byte[] key)
        {
            super(calls, key);
        }

        @Override
        void begin()
        {
            old = null;
            get();
        }

        @Override
        public RespReply next(final Status status, final long version, final byte[] payload)
        {
            if (old == null)
            {
                if (status == Status.NOT_FOUND)
                {
                    return RespReply.NULL;
                }
                if (status != Status.OK)
                {
                    return failed(status, payload);
                }
                old = orEmpty(payload);
                return write(RecordWriteRequestFlyweight.OP_DELETE_IF_VERSION, version, 0, null);
            }
            return status == Status.OK ? RespReply.bulk(old) : status == Status.CONDITION_FAILED ? again() :
                failed(status, payload);
        }
    }

    /**
     * PERSIST: a TTL read; 0 for a missing key and for one without expiry (Redis), else PERSIST of the data version
     * read (the node refuses it when the key changed since: read again); 1 when it removed the expiry.
     */
    private final class Persist extends Chain
    {
        private boolean writing;

        Persist(final StoreCalls calls, final byte[] key)
        {
            super(calls, key);
        }

        @Override
        void begin()
        {
            writing = false;
            ttl();
        }

        @Override
        public RespReply next(final Status status, final long version, final byte[] payload)
        {
            if (!writing)
            {
                if (status == Status.NOT_FOUND)
                {
                    return RespReply.integer(0);
                }
                if (status != Status.OK)
                {
                    return failed(status, payload);
                }
                if (expiryOf(payload) == 0)
                {
                    return RespReply.integer(0);
                }
                writing = true;
                return write(RecordWriteRequestFlyweight.OP_PERSIST, version, 0, null);
            }
            if (status == Status.OK)
            {
                return RespReply.integer(1);
            }
            return status == Status.CONDITION_FAILED || status == Status.NOT_FOUND ? again() : failed(status, payload);
        }
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
        final int hashSlot = KeyHash.hashSlot(args[1]);
        for (int i = 3; i < args.length; i += 2)
        {
            if (KeyHash.hashSlot(args[i]) != hashSlot)
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

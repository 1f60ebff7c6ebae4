package io.rdmakv.client;

import io.rdmakv.client.internal.ClientRuntime;
import io.rdmakv.protocol.ProtocolLimits;
import io.rdmakv.protocol.layout.KeyHash;
import io.rdmakv.protocol.wire.KeyScanPage;
import io.rdmakv.protocol.wire.KeyScanRequestFlyweight;
import org.agrona.concurrent.UnsafeBuffer;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.CompletableFuture;

/**
 * Key scans and range and prefix reads over KEY_SCAN requests: each request goes to the node that serves its first
 * hash slot (the client's routing, redirects and retries included) and answers one bounded page, which names where to
 * go on. A scan call is one request (as Redis's SCAN is one command); a range or prefix read asks pages of its one hash
 * slot until it has its limit or the range ends.
 */
final class KeyScanning
{
    private static final byte[] NONE = new byte[0];
    private static final int LAST_SLOT = ProtocolLimits.HASH_SLOT_COUNT - 1;

    private final ClientRuntime runtime;

    KeyScanning(final ClientRuntime runtime)
    {
        this.runtime = runtime;
    }

    ScanResult scan(final ScanCursor cursor, final byte[] match, final int count)
    {
        if (cursor.isFinished())
        {
            return new ScanResult(ScanCursor.FINISHED, List.of());
        }
        return scanResult(runtime.keyScan(scanBody(cursor, match, count)));
    }

    CompletableFuture<ScanResult> scanAsync(final ScanCursor cursor, final byte[] match, final int count)
    {
        if (cursor.isFinished())
        {
            return CompletableFuture.completedFuture(new ScanResult(ScanCursor.FINISHED, List.of()));
        }
        final byte[] body;
        try
        {
            body = scanBody(cursor, match, count);
        }
        catch (final IllegalArgumentException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return runtime.keyScanAsync(body).thenApply(KeyScanning::scanResult);
    }

    /** Every key (matching {@code match}) from the start, fetched {@code count} at a time as the iterator is read. */
    Iterator<byte[]> keys(final byte[] match, final int count)
    {
        checkCount(count);
        return new Iterator<>()
        {
            private final ArrayDeque<byte[]> buffered = new ArrayDeque<>();
            private ScanCursor cursor = ScanCursor.START;

            @Override
            public boolean hasNext()
            {
                while (buffered.isEmpty() && !cursor.isFinished())
                {
                    final ScanResult result = scan(cursor, match, count);
                    buffered.addAll(result.keys());
                    cursor = result.cursor();
                }
                return !buffered.isEmpty();
            }

            @Override
            public byte[] next()
            {
                if (!hasNext())
                {
                    throw new NoSuchElementException("the scan is finished");
                }
                return buffered.poll();
            }
        };
    }

    List<KvEntry> range(final byte[] from, final byte[] to, final int limit)
    {
        return rangeIn(rangeSlot(from, to, limit), from, to, limit);
    }

    /** Keys {@code from} (inclusive) to {@code to} (exclusive) of hash slot {@code hashSlot}, with values. */
    private List<KvEntry> rangeIn(final int hashSlot, final byte[] from, final byte[] to, final int limit)
    {
        final List<KvEntry> entries = new ArrayList<>();
        byte[] after = from;
        int flags = KeyScanRequestFlyweight.WITH_VALUES | KeyScanRequestFlyweight.FROM_INCLUSIVE;
        while (true)
        {
            final KeyScanPage.Decoded page = decode(runtime.keyScan(rangeBody(hashSlot, after, to, flags,
                limit - entries.size())), true);
            if (add(entries, page, limit, hashSlot))
            {
                return entries;
            }
            after = page.resumeKey();
            flags = KeyScanRequestFlyweight.WITH_VALUES;
        }
    }

    CompletableFuture<List<KvEntry>> rangeAsync(final byte[] from, final byte[] to, final int limit)
    {
        final int hashSlot;
        try
        {
            hashSlot = rangeSlot(from, to, limit);
        }
        catch (final IllegalArgumentException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return rangeFrom(hashSlot, from, to, KeyScanRequestFlyweight.WITH_VALUES |
            KeyScanRequestFlyweight.FROM_INCLUSIVE, limit, new ArrayList<>());
    }

    private CompletableFuture<List<KvEntry>> rangeFrom(final int hashSlot, final byte[] after, final byte[] to,
        final int flags, final int limit, final List<KvEntry> entries)
    {
        return runtime.keyScanAsync(rangeBody(hashSlot, after, to, flags, limit - entries.size()))
            .thenCompose(bytes ->
            {
                final KeyScanPage.Decoded page = decode(bytes, true);
                if (add(entries, page, limit, hashSlot))
                {
                    return CompletableFuture.completedFuture(entries);
                }
                return rangeFrom(hashSlot, page.resumeKey(), to, KeyScanRequestFlyweight.WITH_VALUES, limit,
                    entries);
            });
    }

    List<KvEntry> prefix(final byte[] prefix, final int limit)
    {
        checkPrefix(prefix, limit);
        return rangeIn(KeyHash.hashSlot(prefix), prefix, successor(prefix), limit);
    }

    CompletableFuture<List<KvEntry>> prefixAsync(final byte[] prefix, final int limit)
    {
        try
        {
            checkPrefix(prefix, limit);
        }
        catch (final IllegalArgumentException ex)
        {
            return CompletableFuture.failedFuture(ex);
        }
        return rangeFrom(KeyHash.hashSlot(prefix), prefix, successor(prefix), KeyScanRequestFlyweight.WITH_VALUES |
            KeyScanRequestFlyweight.FROM_INCLUSIVE, limit, new ArrayList<>());
    }

    /** Append a range page's entries; true when the range is complete (its end, or the limit). */
    private static boolean add(final List<KvEntry> entries, final KeyScanPage.Decoded page, final int limit,
        final int hashSlot)
    {
        for (int i = 0; i < page.keys().size() && entries.size() < limit; i++)
        {
            entries.add(new KvEntry(page.keys().get(i), page.values().get(i)));
        }
        return page.end() || entries.size() >= limit || page.nextSlot() != hashSlot;
    }

    private static byte[] scanBody(final ScanCursor cursor, final byte[] match, final int count)
    {
        checkCount(count);
        return KeyScanRequestFlyweight.body(cursor.hashSlot(), LAST_SLOT, count, 0, cursor.afterBytes(), NONE,
            match == null ? NONE : match);
    }

    private static byte[] rangeBody(final int hashSlot, final byte[] after, final byte[] to, final int flags,
        final int remaining)
    {
        return KeyScanRequestFlyweight.body(hashSlot, hashSlot, Math.min(remaining, KeyScanRequestFlyweight.MAX_COUNT),
            flags, after, to, NONE);
    }

    private static ScanResult scanResult(final byte[] bytes)
    {
        final KeyScanPage.Decoded page = decode(bytes, false);
        return new ScanResult(ScanCursor.of(page.nextSlot(), page.resumeKey()), page.keys());
    }

    private static KeyScanPage.Decoded decode(final byte[] bytes, final boolean withValues)
    {
        try
        {
            return KeyScanPage.read(new UnsafeBuffer(bytes), 0, bytes.length, withValues);
        }
        catch (final IllegalArgumentException ex)
        {
            throw KvException.of(KvError.PROTOCOL_ERROR, "a node answered a scan with " + ex.getMessage(), ex);
        }
    }

    private static void checkCount(final int count)
    {
        if (count < 1 || count > KeyScanRequestFlyweight.MAX_COUNT)
        {
            throw new IllegalArgumentException("count " + count + " outside 1.." + KeyScanRequestFlyweight.MAX_COUNT);
        }
    }

    /**
     * The one hash slot of a range: {@code from} and {@code to} must share it (keys sharing a hash tag {@code {tag}}
     * do), as Redis Cluster refuses a command over keys of several hash slots (CROSSSLOT).
     */
    private static int rangeSlot(final byte[] from, final byte[] to, final int limit)
    {
        if (limit < 1)
        {
            throw new IllegalArgumentException("limit " + limit + " must be at least 1");
        }
        if (from.length == 0 || to.length == 0)
        {
            throw new IllegalArgumentException("a range needs non-empty from and to keys");
        }
        final int hashSlot = KeyHash.hashSlot(from);
        final int toSlot = KeyHash.hashSlot(to);
        if (hashSlot != toSlot)
        {
            throw new IllegalArgumentException("CROSSSLOT: from and to are in different hash slots (" + hashSlot +
                " and " + toSlot + "): keys of a range must share a hash tag, as {user1}:a and {user1}:z do");
        }
        return hashSlot;
    }

    /** A prefix must hold a whole non-empty hash tag, so every key that starts with it shares its hash slot. */
    private static void checkPrefix(final byte[] prefix, final int limit)
    {
        if (limit < 1)
        {
            throw new IllegalArgumentException("limit " + limit + " must be at least 1");
        }
        int open = -1;
        for (int i = 0; i < prefix.length; i++)
        {
            if (prefix[i] == '{')
            {
                open = i;
                break;
            }
        }
        int close = -1;
        for (int i = open + 1; open >= 0 && i < prefix.length; i++)
        {
            if (prefix[i] == '}')
            {
                close = i;
                break;
            }
        }
        if (open < 0 || close <= open + 1)
        {
            throw new IllegalArgumentException("CROSSSLOT: a prefix read needs a whole hash tag in the prefix " +
                "(such as {user1}:), so that every key starting with it is in one hash slot: '" +
                new String(prefix, java.nio.charset.StandardCharsets.UTF_8) + "'");
        }
    }

    /** The least key above every key that starts with {@code prefix} (it holds a '}', so never all 0xFF bytes). */
    static byte[] successor(final byte[] prefix)
    {
        int last = prefix.length - 1;
        while (prefix[last] == (byte)0xFF)
        {
            last--;
        }
        final byte[] next = Arrays.copyOf(prefix, last + 1);
        next[last]++;
        return next;
    }
}

package io.rdmakv.server.handler;

import io.rdmakv.protocol.wire.ScanRequestFlyweight;
import io.rdmakv.server.store.RocksStore;
import io.rdmakv.server.store.StoreSnapshot;
import org.agrona.MutableDirectBuffer;
import org.agrona.collections.Long2ObjectHashMap;

import java.util.concurrent.TimeUnit;

/**
 * The snapshots SCAN requests read (backup): opened by a request with snapshot id 0, named by the pages after it,
 * released after the last (empty) page or a minute without a request. At most {@value #MAX_OPEN} at once.
 * Request thread only.
 */
final class ScanPages implements AutoCloseable
{
    static final int MAX_OPEN = 16;
    private static final long IDLE_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final RocksStore store;
    private final Long2ObjectHashMap<Open> open = new Long2ObjectHashMap<>();
    private long nextId = 1;

    ScanPages(final RocksStore store)
    {
        this.store = store;
    }

    /** A page for {@code request} at {@code page[offset]}; returns {@code (snapshot id, bytes)} in {@code result}. */
    boolean page(final ScanRequestFlyweight request, final MutableDirectBuffer page, final int offset,
        final int capacity, final long[] result)
    {
        final long now = System.nanoTime();
        expire(now);
        long id = request.snapshotId();
        Open snapshot = open.get(id);
        if (id == 0)
        {
            if (open.size() >= MAX_OPEN)
            {
                return false;
            }
            id = nextId++;
            snapshot = new Open(store.snapshot());
            open.put(id, snapshot);
        }
        else if (snapshot == null)
        {
            throw new IllegalArgumentException("snapshot " + id + " unknown or expired: start the scan again");
        }
        snapshot.lastUse = now;
        byte[] cursor = null;
        if (request.cursorLength() > 0)
        {
            cursor = new byte[request.cursorLength()];
            request.buffer().getBytes(request.cursorIndex(), cursor);
        }
        final int bytes = snapshot.snapshot.page(request.firstSlot(), request.lastSlot(), cursor, page, offset,
            Math.min(capacity, Math.max(request.pageBytes(), 1)));
        if (bytes == 0)
        {
            open.remove(id).snapshot.close();
        }
        result[0] = id;
        result[1] = bytes;
        return true;
    }

    private void expire(final long now)
    {
        if (open.isEmpty())
        {
            return;
        }
        open.values().removeIf(o ->
        {
            if (now - o.lastUse > IDLE_NANOS)
            {
                o.snapshot.close();
                return true;
            }
            return false;
        });
    }

    @Override
    public void close()
    {
        open.values().forEach(o -> o.snapshot.close());
        open.clear();
    }

    private static final class Open
    {
        final StoreSnapshot snapshot;
        long lastUse;

        Open(final StoreSnapshot snapshot)
        {
            this.snapshot = snapshot;
        }
    }
}

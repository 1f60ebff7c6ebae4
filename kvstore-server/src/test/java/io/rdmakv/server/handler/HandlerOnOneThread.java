package io.rdmakv.server.handler;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.KeyHasher;
import io.rdmakv.protocol.layout.PoolGeometry;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.counters.ServerCounters;
import io.rdmakv.server.pool.PoolIndex;
import io.rdmakv.server.pool.PoolSizing;
import io.rdmakv.server.replication.Replication;
import io.rdmakv.server.session.SessionTickets;
import io.rdmakv.server.store.Durability;
import io.rdmakv.server.store.RocksStore;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A single node's {@link RequestHandler} over a real RocksDB in {@code dir} and an 8 MiB unpinned pool, for tests that
 * hand it messages on their own thread (no transport): DEFAULT durability unless given, limits of 64 B keys, 4 KiB
 * values and 16 connections. Under FSYNC a write is answered at a {@code handler.doWork()} after its group commit.
 * Close it to close the store and the pool.
 */
final class HandlerOnOneThread implements AutoCloseable
{
    final RocksStore store;
    final PinnedArena arena;
    final SessionTickets tickets = new SessionTickets(Duration.ofSeconds(30), 16, new SystemNanoClock());
    final ServerCounters counters = new ServerCounters();
    final PoolIndex index;
    final RequestHandler handler;
    /** The local write path under the handler when built {@link #withBareLocalPath}: no write ids. */
    final WritePath bareLocal;

    HandlerOnOneThread(final Path dir)
    {
        this(dir, KeyHasher.STANDARD);
    }

    /** @param hasher how the handler hashes each request's key at decode. */
    HandlerOnOneThread(final Path dir, final KeyHasher hasher)
    {
        this(dir, hasher, SlotRouter.singleNode());
    }

    /** @param router which hash slots the handler serves (a single node's: all). */
    HandlerOnOneThread(final Path dir, final KeyHasher hasher, final SlotRouter router)
    {
        this(dir, hasher, router, false, Durability.DEFAULT);
    }

    /** A single node's handler with the store under {@code durability}. */
    HandlerOnOneThread(final Path dir, final Durability durability)
    {
        this(dir, KeyHasher.STANDARD, SlotRouter.singleNode(), false, durability);
    }

    /** A handler whose client writes go straight to the local path ({@link #bareLocal}), which a test may break. */
    static HandlerOnOneThread withBareLocalPath(final Path dir)
    {
        return withBareLocalPath(dir, Durability.DEFAULT);
    }

    /** As {@link #withBareLocalPath(Path)}, the store under {@code durability}. */
    static HandlerOnOneThread withBareLocalPath(final Path dir, final Durability durability)
    {
        return new HandlerOnOneThread(dir, KeyHasher.STANDARD, SlotRouter.singleNode(), true, durability);
    }

    private HandlerOnOneThread(final Path dir, final KeyHasher hasher, final SlotRouter router, final boolean bare,
        final Durability durability)
    {
        final long size = 8L << 20;
        final int partition = 1 << 20;
        this.store = RocksStore.open(dir, durability);
        this.arena = PinnedArena.map(size, PinPolicy.OFF, HugePages.NONE, partition);
        final PoolGeometry geometry = PoolSizing.plan(size, 224);
        final ExtentAllocator allocator = PoolSizing.newAllocator(geometry, partition,
            new EpochReclaimer(0, new SystemNanoClock()));
        this.index = new PoolIndex(arena.partitions(), geometry, allocator, 1, 1);
        final Limits limits = new Limits(64, 4096, 16);
        final NodeWrites node = new NodeWrites(store, index, counters, limits,
            new ResponseSender(counters, limits.maxResponseBytes()), () -> { });
        final Replication writes = Replication.localOnly(node);
        this.bareLocal = bare ? node.localPath(node.poolAndAnswer(), DurableRecords.NONE) : null;
        this.handler = new RequestHandler(node, new HandlerContext(router, tickets,
            ServerConfig.defaults().admission(), RequestTimer.NONE, hasher), bare ? bareLocal : writes.clientWrites(),
            writes.replicaInbox());
    }

    @Override
    public void close()
    {
        arena.close();
        store.close();
    }
}

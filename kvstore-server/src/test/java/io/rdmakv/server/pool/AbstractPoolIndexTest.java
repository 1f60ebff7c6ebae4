package io.rdmakv.server.pool;

import io.rdmakv.pool.HugePages;
import io.rdmakv.pool.PinPolicy;
import io.rdmakv.pool.PinnedArena;
import io.rdmakv.pool.alloc.EpochReclaimer;
import io.rdmakv.pool.alloc.ExtentAllocator;
import io.rdmakv.protocol.layout.PoolGeometry;
import org.junit.jupiter.api.AfterEach;

import java.nio.charset.StandardCharsets;

/**
 * What the tests of {@link PoolIndex} and {@link PoolEviction} share: an index over a fresh arena of small
 * partitions (so extents and buckets lie across several views), node id 7, epoch 3, and a grace-period clock the
 * test moves by hand ({@link #now}).
 */
abstract class AbstractPoolIndexTest
{
    static final int PARTITION = 1 << 20;

    PinnedArena arena;
    long now;
    ExtentAllocator allocator;

    @AfterEach
    void closeArena()
    {
        if (arena != null)
        {
            arena.close();
        }
    }

    PoolIndex newIndex(final long poolSize, final PoolGeometry geometry, final long graceNs)
    {
        arena = PinnedArena.map(poolSize, PinPolicy.OFF, HugePages.NONE, PARTITION);
        final EpochReclaimer reclaimer = new EpochReclaimer(graceNs, () -> now);
        allocator = PoolSizing.newAllocator(geometry, PARTITION, reclaimer);
        return new PoolIndex(arena.partitions(), geometry, allocator, 7, 3);
    }

    /** A reader of the current arena that knows only the published layout, as a remote client does. */
    LayoutReader reader()
    {
        return new LayoutReader(arena.address(), (int)arena.size());
    }

    static byte[] b(final String s)
    {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}

package io.rdmakv.transport.verbs;

import com.sun.jna.Native;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.TransportStatus;
import org.agrona.concurrent.UnsafeBuffer;

import static io.rdmakv.transport.verbs.ffi.VerbsLayout.ACCESS_LOCAL_WRITE;

/**
 * The local send, receive and read-bounce buffers of every endpoint of one worker: one block of native memory,
 * registered once ({@code LOCAL_WRITE} only) when the worker starts and deregistered when it closes, cut into
 * {@code verbs.maxEndpoints} equal slices. An endpoint takes a slice when its connection is set up and gives it back
 * after its QP is destroyed, so connecting and disconnecting never register memory; when every slice is taken, a
 * connect fails with a {@link TransportException} naming the setting to raise.
 *
 * <pre>
 *  block (page aligned, one ibv_reg_mr, one lkey)
 *  +---------------------+---------------------+-- ... --+------------------------------+
 *  | slice 0             | slice 1             |         | slice maxEndpoints - 1       |
 *  +---------------------+---------------------+-- ... --+------------------------------+
 *  each slice laid out by EndpointBufferLayout: send buffers | receive buffers | bounce area
 * </pre>
 *
 * <p>Threads: slices are taken and given back on the worker's thread (or by {@link VerbsWorker#close()} under the
 * worker's progress lock), so a slice is never reused while the worker still delivers a message out of it. The
 * block outlives every QP that could write into it: the worker destroys all QPs before it closes the pool.
 */
final class EndpointBufferPool implements AutoCloseable
{
    /** One endpoint's share of the pool. */
    static final class Slice
    {
        final int index;
        final long address;
        final int lkey;
        /** The whole slice from its offset 0: send buffers, receive buffers and bounce area. */
        final UnsafeBuffer view;
        /** The bounce area alone, from its offset 0. */
        final UnsafeBuffer bounceView;

        Slice(final int index, final long address, final int lkey, final EndpointBufferLayout layout)
        {
            this.index = index;
            this.address = address;
            this.lkey = lkey;
            this.view = new UnsafeBuffer(address, layout.sliceBytes);
            this.bounceView = new UnsafeBuffer(address + layout.bounceBase, layout.readBounceBytes);
        }

        @Override
        public String toString()
        {
            return "Slice{" + index + " at 0x" + Long.toHexString(address) + '}';
        }
    }

    /** What closing the pool releases (the registration and the memory); nothing for a pool over borrowed memory. */
    interface Release
    {
        void release();
    }

    final EndpointBufferLayout layout;
    private final String owner;
    private final Slice[] slices;
    private final boolean[] taken;
    private final int[] free;
    private final Release release;
    private int freeCount;
    private boolean closed;

    /**
     * A pool over {@code layout.poolBytes(maxEndpoints)} bytes at {@code address}, already registered with
     * {@code lkey}. {@link #register} is the real constructor; this one lets tests run the book-keeping over plain
     * memory.
     */
    EndpointBufferPool(final String owner, final EndpointBufferLayout layout, final int maxEndpoints,
        final long address, final int lkey, final Release release)
    {
        if (maxEndpoints <= 0)
        {
            throw new IllegalArgumentException("maxEndpoints must be positive: " + maxEndpoints);
        }
        this.owner = owner;
        this.layout = layout;
        this.release = release;
        this.slices = new Slice[maxEndpoints];
        this.taken = new boolean[maxEndpoints];
        this.free = new int[maxEndpoints];
        for (int i = 0; i < maxEndpoints; i++)
        {
            slices[i] = new Slice(i, address + (long)i * layout.sliceBytes, lkey, layout);
            // Lowest index on top of the stack: slices are handed out 0, 1, 2, ... (easier to read in a dump).
            free[i] = maxEndpoints - 1 - i;
        }
        this.freeCount = maxEndpoints;
    }

    /**
     * Allocate and register the block for {@code maxEndpoints} endpoints: one {@code ibv_reg_mr}, counted by the
     * memory domain.
     *
     * @throws TransportException when the memory cannot be allocated or registered, with the figures and settings;
     *                            for ENOMEM (the memlock limit) also what the process has registered already and
     *                            the limit it needs.
     */
    static EndpointBufferPool register(final VerbsMemoryDomain domain, final String owner,
        final EndpointBufferLayout layout, final int maxEndpoints)
    {
        final long bytes = layout.poolBytes(maxEndpoints);
        final long raw = Native.malloc(bytes + EndpointBufferLayout.SLICE_ALIGNMENT);
        if (raw == 0)
        {
            throw new TransportException("worker " + owner + ": cannot allocate " + bytes + " bytes of endpoint " +
                "buffers (" + layout.describeBlock(maxEndpoints) + "): lower verbs.maxEndpoints or the queue depths");
        }
        final long aligned = (raw + EndpointBufferLayout.SLICE_ALIGNMENT - 1) & -EndpointBufferLayout.SLICE_ALIGNMENT;
        final long mr;
        try
        {
            mr = domain.registerRaw(aligned, bytes, ACCESS_LOCAL_WRITE,
                "the endpoint buffers of worker " + owner + " (" + layout.describeBlock(maxEndpoints) + ")",
                memlockAdvice(domain.registeredBytes(), bytes, layout, maxEndpoints));
        }
        catch (final RuntimeException e)
        {
            Native.free(raw);
            throw e;
        }
        return new EndpointBufferPool(owner, layout, maxEndpoints, aligned, VerbsMemoryDomain.lkey(mr), () ->
        {
            domain.deregisterRaw(mr, bytes);
            Native.free(raw);
        });
    }

    /**
     * What to do when registering the block hits the memlock limit: registered memory is pinned and counted against
     * {@code RLIMIT_MEMLOCK}, so the limit must hold what is registered already plus this block; or the block must
     * shrink.
     */
    static String memlockAdvice(final long alreadyRegistered, final long blockBytes, final EndpointBufferLayout layout,
        final int maxEndpoints)
    {
        final long needed = alreadyRegistered + blockBytes;
        return "registered memory is pinned against RLIMIT_MEMLOCK, which must hold what this process has " +
            "registered already (" + alreadyRegistered + " bytes, e.g. a server's pool) plus these " + blockBytes +
            " bytes = " + needed + " bytes (" + ((needed + (1 << 20) - 1) >> 20) + " MiB). Fix: raise the limit to " +
            "at least " + (needed + 1023) / 1024 + " KiB (`ulimit -l unlimited`, systemd `LimitMEMLOCK=infinity`, " +
            "`docker run --ulimit memlock=-1:-1`), or register less per worker: lower verbs.maxEndpoints (now " +
            maxEndpoints + ", " + layout.sliceBytes / 1024 + " KiB each, one per endpoint open at once) or " +
            "verbs.sendDepth / verbs.recvDepth (now " + layout.sendDepth + " / " + layout.recvDepth + ")";
    }

    /**
     * Take a free slice for a new endpoint.
     *
     * @throws TransportException when every slice is in use, naming {@code verbs.maxEndpoints}.
     */
    Slice take()
    {
        if (closed)
        {
            throw new TransportException(TransportStatus.CLOSED, "worker " + owner + " is closed", null);
        }
        if (freeCount == 0)
        {
            throw new TransportException(TransportStatus.NOT_CONNECTED, "worker " + owner + ": all " + slices.length +
                " endpoint buffer slices are in use (one per open endpoint); raise verbs.maxEndpoints (now " +
                slices.length + ", " + layout.sliceBytes / 1024 + " KiB registered per endpoint at worker start) " +
                "or use more workers", null);
        }
        final int index = free[--freeCount];
        taken[index] = true;
        return slices[index];
    }

    /** Return a slice whose QP is destroyed (nothing can write into it any more). */
    void giveBack(final Slice slice)
    {
        if (slice == null || slice.index >= slices.length || slices[slice.index] != slice)
        {
            throw new IllegalArgumentException("not a slice of this pool: " + slice);
        }
        if (!taken[slice.index])
        {
            throw new IllegalStateException("slice " + slice.index + " of worker " + owner + " given back twice");
        }
        taken[slice.index] = false;
        free[freeCount++] = slice.index;
    }

    int inUse()
    {
        return slices.length - freeCount;
    }

    long bytes()
    {
        return layout.poolBytes(slices.length);
    }

    /** Deregister and free the block. Call only when no QP that used a slice exists any more. Idempotent. */
    @Override
    public void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        release.release();
    }

    @Override
    public String toString()
    {
        return "EndpointBufferPool{" + owner + ", " + inUse() + "/" + slices.length + " in use, " + layout + '}';
    }
}

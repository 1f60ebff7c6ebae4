package io.rdmakv.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.epoll.EpollSocketChannel;
import io.netty.channel.unix.UnixChannel;
import io.netty.channel.unix.FileDescriptor;
import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.libc.LibCLayout;
import org.agrona.DirectBuffer;
import org.agrona.collections.IntArrayQueue;
import org.agrona.collections.LongArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;

/**
 * The write side of one {@link TcpEndpoint}: frames posted from any thread are coalesced into batches written by one
 * task on the channel's event loop, with one flush and at most one promise per batch. A message posted with
 * {@link #addMessage} is framed straight into the batch's open buffer (one pooled buffer of
 * {@link #BATCH_BUFFER_BYTES} for many frames), so a batch of small messages is one allocation, one Netty write and
 * one I/O vector, not one of each per message.
 * <pre>
 *   any thread: addMessage(bytes, sendId) -> [monitor] framed into the open buffer (a new one when it is full)
 *               add(frame, sendId)        -> [monitor] queued as it is (closes the open buffer: order is kept)
 *               both: queued send ids; first of a batch -> schedule()
 *   schedule(): execute(write task)   (from another thread: one eventfd wake-up per batch; from the loop itself: runs
 *                                      after the current read batch, so a batch of answers leaves in one write)
 *   write task: swap the queues; write(f1, void) ... write(fn, promise); flush
 *   promise of fn done -> every frame before it is written too (Netty completes writes in order) -> the batch's sends
 *                          complete through {@link WriteListener#onWritten}; sends nobody waits for (no completion
 *                          handler) are only counted and their credits returned at once ({@link CreditListener})
 * </pre>
 * A failed void-promise write closes the channel through {@code exceptionCaught}, which fails the operations.
 *
 * <p><b>Direct writes</b> (a connecting endpoint on epoll, {@code tcp.directWrites}): a thread other than the loop that
 * starts a batch writes it to the socket itself, under the monitor, when the loop has none of this endpoint's bytes in
 * hand and the batch holds no tracked send (those complete on the loop); a synchronous caller's request then leaves
 * on its own thread with no task and no eventfd wake-up of the loop, as a blocking client's would. What the socket
 * does not take (a full send buffer) or a write error leaves the rest to the write task, unchanged:
 * <pre>
 *   schedule(), not on the loop:  loop { [monitor] loop not writing, Netty's buffer empty, no tracked send queued?
 *                                          nothing queued: scheduled = false, done; else take the queue
 *                                        write(dup fd, frame) ... outside the monitor (others only queue meanwhile)
 *                                        all written: release them, return their credits, loop again
 *                                        else: [monitor] the rest back in front; execute(write task) as before }
 *   write task (loop):            [monitor] swap the queues, loopWriting = true ... flush ...
 *                                 [monitor] loopWriting = Netty's outbound buffer still holds bytes
 * </pre>
 * A caller writes directly only while every frame posted before its own was answered (as many frames came in as went
 * out; {@code tcp.directWritesWhenBusy} lifts it): with many callers or one pipelining, a post joins the loop's batch
 * (YCSB C at 16 threads: 0.57x redis with direct writes there, 0.71-0.74x without); and only when the endpoint's last
 * direct write ended {@code tcp.directWriteGapMicros} ago or
 * more: a request-response caller's next request comes a round trip later and is written at once, while posts that
 * follow each other closer (one thread pipelining, many threads at once) join the loop's batch, one write for all (with
 * every post written on its own, pipelined GETs at 50 x 16 fell from 0.70x to 0.38x redis).
 * Order holds: a direct write happens only while no earlier frame is queued, in the write task's hands or in Netty's
 * buffer, and callers write under the monitor one at a time. The socket is written through a duplicate descriptor,
 * closed when the channel goes inactive (under the monitor), so a descriptor number the loop closed and the kernel
 * gave to another file is never written.
 */
final class TcpOutbound
{
    private static final Logger LOG = LoggerFactory.getLogger(TcpOutbound.class);

    /** Told, on the event loop, when a send's frame has been written (or failed to be). */
    @FunctionalInterface
    interface WriteListener
    {
        void onWritten(long sendId, boolean success);
    }

    /** Told, on the event loop, how many sends nobody waits for have been written (or failed to be). */
    @FunctionalInterface
    interface CreditListener
    {
        void onAnonymousWritten(int count);
    }

    /**
     * Capacity of a batch's open buffer: about 180 GET requests or 60 answers of 100 B values; a larger message gets a
     * buffer of its own size.
     */
    static final int BATCH_BUFFER_BYTES = 8192;

    /** {@link #add} kind: a frame whose completion comes otherwise (a read request). */
    static final long NOT_A_SEND = -1;
    /** {@link #add} kind: a send without a completion handler: counted, not tracked by id. */
    static final long ANONYMOUS_SEND = -2;

    private final Channel channel;
    private final ByteBufAllocator alloc;
    private final WriteListener listener;
    private final CreditListener credits;
    private final Object monitor = new Object();

    /** Posted and not yet handed to Netty, and the ids of the sends among them (under monitor). */
    private ArrayDeque<ByteBuf> queuedFrames = new ArrayDeque<>();
    private LongArrayQueue queuedSendIds = new LongArrayQueue();
    private int queuedAnonymous;
    private boolean scheduled;
    /** The last of the queued frames while messages may still be appended to it, else null (under monitor). */
    private ByteBuf open;

    /** Event loop only: the batch being written, sends written but not yet confirmed, send count per batch. */
    private ArrayDeque<ByteBuf> writingFrames = new ArrayDeque<>();
    private LongArrayQueue writingSendIds = new LongArrayQueue();
    private final LongArrayQueue writtenSendIds = new LongArrayQueue();
    private final IntArrayQueue batchSendCounts = new IntArrayQueue();
    private final IntArrayQueue batchAnonymousCounts = new IntArrayQueue();
    private final Runnable writeTask = this::writeNow;
    private final ChannelFutureListener batchListener = this::onBatchWritten;

    /** Direct writes: a duplicate of the channel's socket descriptor, or null (off, or closed: under monitor). */
    private FileDescriptor direct;
    /** The direct writer's spare queue, swapped with {@link #queuedFrames} (under monitor). */
    private ArrayDeque<ByteBuf> directFrames = new ArrayDeque<>();
    /** Under monitor: a direct writer is in a system call on {@link #direct}, which a close must leave open till then. */
    private boolean directWriting;
    /** Under monitor: closed while a direct write ran; the writer closes it when its call returns. */
    private FileDescriptor closeAfterWrite;
    /** Under monitor: the loop holds frames of this endpoint (a write task between its swap and its flush's end). */
    private boolean loopWriting;
    /** See the constructor; and when the last direct write ended (written by the one direct writer). */
    private final long directGapNanos;
    /** Whether the endpoint's state allows a direct write now (every earlier frame answered, by default). */
    private final java.util.function.BooleanSupplier directAllowed;
    private volatile long lastDirectEndNanos;
    /** Batches written by callers themselves, and direct writes the socket cut short (diagnostics, tests). */
    private volatile long directBatches;
    private volatile long directWritesCutShort;

    TcpOutbound(final Channel channel, final WriteListener listener, final CreditListener credits)
    {
        this(channel, listener, credits, -1, () -> false);
    }

    /**
     * @param directWriteGapNanos callers may write their batches themselves (epoll channels only; see the class) when
     *                            the last direct write ended at least this long ago; negative: never.
     */
    TcpOutbound(final Channel channel, final WriteListener listener, final CreditListener credits,
        final long directWriteGapNanos, final java.util.function.BooleanSupplier directAllowed)
    {
        this.directAllowed = directAllowed;
        this.channel = channel;
        this.alloc = channel.alloc();
        this.listener = listener;
        this.credits = credits;
        this.directGapNanos = directWriteGapNanos;
        this.direct = directWriteGapNanos >= 0 ? duplicate(channel) : null;
        this.lastDirectEndNanos = System.nanoTime() - Math.max(0, directWriteGapNanos);
    }

    /**
     * A duplicate of an epoll channel's descriptor, or null (not epoll, libc not bound (an embedder without JNA on the
     * class path), or the duplicate failed: the loop writes).
     */
    private static FileDescriptor duplicate(final Channel channel)
    {
        if (!(channel instanceof EpollSocketChannel) || !(channel instanceof UnixChannel epoll) || !LibC.isLoaded())
        {
            return null;
        }
        final int fd = LibC.fcntl(epoll.fd().intValue(), LibCLayout.F_DUPFD_CLOEXEC, 0);
        if (fd < 0)
        {
            LOG.debug("{}: no duplicate descriptor for direct writes (errno {}): the event loop writes", channel,
                LibC.errno());
            return null;
        }
        return new FileDescriptor(fd);
    }

    /** Batches callers wrote to the socket themselves. */
    long directBatches()
    {
        return directBatches;
    }

    /** Direct writes that left the rest of their batch to the loop (the socket's send buffer was full). */
    long directWritesCutShort()
    {
        return directWritesCutShort;
    }

    /** The channel is inactive: no more direct writes; the duplicate descriptor is closed. Any thread, idempotent. */
    void closeDirect()
    {
        synchronized (monitor)
        {
            final FileDescriptor fd = direct;
            direct = null;
            if (directWriting)
            {
                closeAfterWrite = fd;
            }
            else
            {
                close(fd);
            }
        }
    }

    private void close(final FileDescriptor fd)
    {
        if (fd != null)
        {
            try
            {
                fd.close();
            }
            catch (final IOException ex)
            {
                LOG.debug("{}: closing the direct-write descriptor failed", channel, ex);
            }
        }
    }

    /**
     * Queue {@code frame} (ownership passes); {@code sendId} is a send's request id, {@link #ANONYMOUS_SEND}, or
     * {@link #NOT_A_SEND}.
     *
     * @return true when this frame starts a batch: the caller must call {@link #schedule()} (outside its own locks).
     */
    boolean add(final ByteBuf frame, final long sendId)
    {
        synchronized (monitor)
        {
            queuedFrames.addLast(frame);
            open = null; // later messages go behind this frame
            return queuedLocked(sendId);
        }
    }

    /**
     * Queue a MESSAGE frame of the {@code length} bytes of {@code src} at {@code offset}, copied into the batch's open
     * buffer now (the caller's bytes are not kept); {@code sendId} as for {@link #add}.
     *
     * @return true when this frame starts a batch: the caller must call {@link #schedule()} (outside its own locks).
     */
    boolean addMessage(final DirectBuffer src, final int offset, final int length, final long sendId)
    {
        final int frameLength = TcpFrames.MESSAGE_OVERHEAD + length;
        synchronized (monitor)
        {
            ByteBuf buffer = open;
            if (buffer == null || buffer.capacity() - buffer.writerIndex() < frameLength)
            {
                buffer = alloc.directBuffer(Math.max(BATCH_BUFFER_BYTES, frameLength));
                queuedFrames.addLast(buffer);
                open = buffer;
            }
            TcpFrames.writeMessageHeader(buffer, length);
            TcpCopy.append(src, offset, buffer, length);
            return queuedLocked(sendId);
        }
    }

    /** Under monitor: count the frame just queued; true when it starts a batch. */
    private boolean queuedLocked(final long sendId)
    {
        if (sendId >= 0)
        {
            queuedSendIds.addLong(sendId);
        }
        else if (sendId == ANONYMOUS_SEND)
        {
            queuedAnonymous++;
        }
        if (scheduled)
        {
            return false;
        }
        scheduled = true;
        return true;
    }

    void schedule()
    {
        if (direct != null && System.nanoTime() - lastDirectEndNanos >= directGapNanos && directAllowed.getAsBoolean() &&
            !channel.eventLoop().inEventLoop() && writeDirect())
        {
            return;
        }
        try
        {
            channel.eventLoop().execute(writeTask);
        }
        catch (final RejectedExecutionException ex)
        {
            // The transport is shutting down: queued frames are released when the endpoint fails its operations.
            LOG.debug("{}: event loop refused the write task", channel);
        }
    }

    /**
     * A caller that started a batch: write it to the socket now if the loop holds nothing of ours (see the class),
     * and go on with what other threads queue meanwhile (they find the batch started and only queue), so one writer at
     * a time does the system calls, outside the monitor.
     *
     * @return true when every queued frame was written: nothing is left for the write task; false when the rest is
     *         the write task's (still {@code scheduled}: the caller executes it).
     */
    private boolean writeDirect()
    {
        while (true)
        {
            final FileDescriptor fd;
            final ArrayDeque<ByteBuf> batch;
            final int anonymous;
            synchronized (monitor)
            {
                fd = direct;
                if (fd == null || !scheduled || loopWriting || !queuedSendIds.isEmpty())
                {
                    return false;
                }
                if (queuedFrames.isEmpty())
                {
                    scheduled = false;
                    return true;
                }
                batch = queuedFrames;
                queuedFrames = directFrames;
                directFrames = batch;
                anonymous = queuedAnonymous;
                queuedAnonymous = 0;
                open = null; // in this writer's hands: never appended to again
                directWriting = true;
            }
            final boolean complete = writeAll(fd, batch);
            lastDirectEndNanos = System.nanoTime();
            synchronized (monitor)
            {
                directWriting = false;
                if (closeAfterWrite != null)
                {
                    close(closeAfterWrite); // the channel went inactive meanwhile
                    closeAfterWrite = null;
                }
            }
            if (!complete)
            {
                synchronized (monitor)
                {
                    directWritesCutShort++;
                    if (direct == null)
                    {
                        // The connection is gone and its queue released: these frames go nowhere either.
                        ByteBuf frame;
                        while ((frame = batch.pollFirst()) != null)
                        {
                            frame.release();
                        }
                        return true;
                    }
                    // The rest goes before anything queued meanwhile; its sends' credits come back with its write.
                    while (!queuedFrames.isEmpty())
                    {
                        batch.addLast(queuedFrames.pollFirst());
                    }
                    final ArrayDeque<ByteBuf> rest = queuedFrames;
                    queuedFrames = batch;
                    directFrames = rest;
                    queuedAnonymous += anonymous;
                }
                return false;
            }
            directBatches++;
            if (anonymous > 0)
            {
                credits.onAnonymousWritten(anonymous);
            }
        }
    }

    /**
     * Write {@code batch}'s frames in order, releasing each one written whole; false when the socket took less (a full
     * send buffer, or an error the write task's own write meets again and closes the channel on): the frames left,
     * the first maybe in part, stay in {@code batch}. Only the one direct writer calls it.
     */
    private static boolean writeAll(final FileDescriptor fd, final ArrayDeque<ByteBuf> batch)
    {
        ByteBuf frame;
        while ((frame = batch.peekFirst()) != null)
        {
            if (!frame.hasMemoryAddress())
            {
                return false;
            }
            try
            {
                frame.skipBytes(fd.writeAddress(frame.memoryAddress(), frame.readerIndex(), frame.writerIndex()));
            }
            catch (final IOException ex)
            {
                return false;
            }
            if (frame.isReadable())
            {
                return false;
            }
            batch.pollFirst();
            frame.release();
        }
        return true;
    }

    /** Event loop: write what is queued, flush once, and watch the batch's last write for the sends in it. */
    void writeNow()
    {
        final int anonymous;
        synchronized (monitor)
        {
            loopWriting = true;
            final ArrayDeque<ByteBuf> frames = queuedFrames;
            queuedFrames = writingFrames;
            writingFrames = frames;
            final LongArrayQueue ids = queuedSendIds;
            queuedSendIds = writingSendIds;
            writingSendIds = ids;
            anonymous = queuedAnonymous;
            queuedAnonymous = 0;
            scheduled = false;
            open = null; // handed to Netty below: never appended to again
        }
        final int sends = writingSendIds.size() + anonymous;
        if (sends > 0)
        {
            batchAnonymousCounts.addInt(anonymous);
            // Recorded before writing: on a closed channel the promise fails within write().
            while (!writingSendIds.isEmpty())
            {
                writtenSendIds.addLong(writingSendIds.pollLong());
            }
            batchSendCounts.addInt(sends - anonymous);
        }
        ByteBuf frame;
        while ((frame = writingFrames.pollFirst()) != null)
        {
            if (sends > 0 && writingFrames.isEmpty())
            {
                channel.write(frame).addListener(batchListener);
            }
            else
            {
                channel.write(frame, channel.voidPromise());
            }
        }
        channel.flush();
        final ChannelOutboundBuffer pending = channel.unsafe().outboundBuffer();
        final boolean holding = pending != null && !pending.isEmpty();
        synchronized (monitor)
        {
            loopWriting = holding; // bytes Netty could not write yet: callers queue behind them until a task finds none
        }
    }

    /** Event loop: a batch's last write finished, so every earlier one did; complete the batch's sends. */
    private void onBatchWritten(final ChannelFuture future)
    {
        final boolean success = future.isSuccess();
        for (int i = batchSendCounts.pollInt(); i > 0; i--)
        {
            listener.onWritten(writtenSendIds.pollLong(), success);
        }
        final int anonymous = batchAnonymousCounts.pollInt();
        if (anonymous > 0)
        {
            credits.onAnonymousWritten(anonymous);
        }
    }

    /** The connection is gone: release frames that never reached Netty; returns the anonymous sends among them. */
    int releaseQueued()
    {
        synchronized (monitor)
        {
            ByteBuf frame;
            while ((frame = queuedFrames.pollFirst()) != null)
            {
                frame.release();
            }
            queuedSendIds.clear();
            open = null;
            final int anonymous = queuedAnonymous;
            queuedAnonymous = 0;
            return anonymous;
        }
    }
}

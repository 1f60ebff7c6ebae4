package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.libc.LibcCalls;
import io.rdmakv.transport.libc.NativeBindings;
import org.agrona.BitUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.ringbuffer.RingBufferDescriptor;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The shared memory file of one shm connection: a header and two Agrona many-to-one ring buffers, one per direction
 * (in the style of Aeron's IPC). The accepting side creates the file and passes its descriptor to the connecting
 * side, which maps it too; each side writes one ring and reads the other. Producers are any thread of the writing
 * process; the reader is its peer's progress thread.
 * <pre>
 *   0       magic u64 ("rdmakvSH") | version u32 | ring capacity u32      (one 4 KiB page)
 *   64      accepting side parked (i32: 1 = wake me with my eventfd)   (own cache line)
 *   128     connecting side parked (i32)                               (own cache line)
 *   4096    ring: connecting side -> accepting side   (capacity + trailer)
 *   ...     ring: accepting side -> connecting side   (capacity + trailer)
 * </pre>
 */
final class ShmRings implements AutoCloseable
{
    /** The data-path libc calls in the binding chosen for the process (JNA or FFM). */
    private static final LibcCalls CALLS = NativeBindings.libc();
    static final long MAGIC = 0x4853766b616d6472L; // "rdmakvSH" little-endian
    static final int VERSION = 1;
    private static final int HEADER = 4096;

    private final SharedMapping mapping;
    private final ManyToOneRingBuffer outbound;
    private final ManyToOneRingBuffer inbound;
    private final int capacity;
    private final UnsafeBuffer header;
    private final int inboundParked;
    private final int outboundParked;
    private final AtomicLong peerWakeups = new AtomicLong();
    private final UnsafeBuffer wakeBuffer = new UnsafeBuffer(org.agrona.BufferUtil.allocateDirectAligned(64, 64));

    private ShmRings(final SharedMapping mapping, final int capacity, final boolean accepting)
    {
        this.mapping = mapping;
        this.capacity = capacity;
        final int ringBytes = capacity + RingBufferDescriptor.TRAILER_LENGTH;
        final UnsafeBuffer toAccepting = new UnsafeBuffer(mapping.address() + HEADER, ringBytes);
        final UnsafeBuffer toConnecting = new UnsafeBuffer(mapping.address() + HEADER + ringBytes, ringBytes);
        this.outbound = new ManyToOneRingBuffer(accepting ? toConnecting : toAccepting);
        this.inbound = new ManyToOneRingBuffer(accepting ? toAccepting : toConnecting);
        this.header = new UnsafeBuffer(mapping.address(), HEADER);
        this.inboundParked = accepting ? 64 : 128;
        this.outboundParked = accepting ? 128 : 64;
        wakeBuffer.putLong(0, 1L);
    }

    /** This side is about to block: a producer of its inbound ring must wake it. */
    void markInboundParked()
    {
        header.putIntVolatile(inboundParked, 1);
    }

    void clearInboundParked()
    {
        if (header.getInt(inboundParked) != 0)
        {
            header.putIntOrdered(inboundParked, 0);
        }
    }

    /** After writing outbound records: wake the peer through its eventfd if it parked (once per park). */
    void wakePeerIfParked(final int peerEventFd)
    {
        if (header.getIntVolatile(outboundParked) != 0 && header.compareAndSetInt(outboundParked, 1, 0))
        {
            CALLS.eventfdWrite(peerEventFd, wakeBuffer.addressOffset());
            peerWakeups.incrementAndGet();
        }
    }

    /** Whether the peer marked its inbound ring parked (it is about to block, or blocks): tests. */
    boolean isPeerParked()
    {
        return header.getIntVolatile(outboundParked) != 0;
    }

    /** The eventfd writes this side made to wake its peer (diagnostics, tests). */
    long peerWakeups()
    {
        return peerWakeups.get();
    }

    /** The ring capacity that carries messages of {@code maxMessageBytes} (a ring's largest message is 1/8 of it). */
    static int capacityFor(final int maxMessageBytes)
    {
        return BitUtil.findNextPositivePowerOfTwo(Math.max(64 * 1024, (maxMessageBytes + 64) * 8));
    }

    static long fileLength(final int capacity)
    {
        return HEADER + 2L * (capacity + RingBufferDescriptor.TRAILER_LENGTH);
    }

    /** The accepting side: a new file, its header written. */
    static ShmRings create(final int capacity)
    {
        final SharedMapping m = SharedMapping.create("rdmakv-shm-rings", fileLength(capacity));
        final UnsafeBuffer header = new UnsafeBuffer(m.address(), HEADER);
        header.putLong(0, MAGIC);
        header.putInt(8, VERSION);
        header.putIntVolatile(12, capacity);
        return new ShmRings(m, capacity, true);
    }

    /**
     * The connecting side: map the file the peer passed (this object then owns {@code fd}).
     *
     * @throws IllegalStateException when the file is not a rings file of this version or is too short.
     */
    static ShmRings attach(final int fd, final int capacity)
    {
        if (capacity <= 0 || !BitUtil.isPowerOfTwo(capacity))
        {
            LibC.close(fd);
            throw new IllegalStateException("shm: peer announced a ring capacity of " + capacity);
        }
        final SharedMapping m = SharedMapping.mapReadWrite(fd, 0, fileLength(capacity));
        final UnsafeBuffer header = new UnsafeBuffer(m.address(), HEADER);
        if (header.getLong(0) != MAGIC || header.getInt(8) != VERSION || header.getIntVolatile(12) != capacity)
        {
            m.close();
            throw new IllegalStateException("shm: the peer's rings file has another layout (magic, version or size)");
        }
        return new ShmRings(m, capacity, false);
    }

    ManyToOneRingBuffer outbound()
    {
        return outbound;
    }

    ManyToOneRingBuffer inbound()
    {
        return inbound;
    }

    int capacity()
    {
        return capacity;
    }

    int fd()
    {
        return mapping.fd();
    }

    @Override
    public void close()
    {
        mapping.close();
    }
}

package io.rdmakv.transport.shm;

import io.rdmakv.transport.libc.LibC;
import io.rdmakv.transport.TransportException;
import io.rdmakv.transport.libc.LibCLayout;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A shared mapping of a memory file ({@code memfd}): the memory the shm transport can hand to another process, by
 * passing its descriptor over a Unix socket, never by a path. {@link #create} makes a new read-write one (rings, test
 * regions); {@link #mapReadOnly} maps a received descriptor read-only, so the kernel refuses every write to it.
 */
public final class SharedMapping implements AutoCloseable
{
    private static final long PAGE = 4096;

    private final int fd;
    private final long mappedAddress;
    private final long mappedLength;
    private final long address;
    private final long length;
    private boolean closed;

    private SharedMapping(final int fd, final long mappedAddress, final long mappedLength, final long address,
        final long length)
    {
        this.fd = fd;
        this.mappedAddress = mappedAddress;
        this.mappedLength = mappedLength;
        this.address = address;
        this.length = length;
    }

    /**
     * A new memory file of {@code length} bytes, zeroed, mapped read-write and shared.
     *
     * @param name shown in {@code /proc/PID/maps} as {@code /memfd:NAME}.
     */
    public static SharedMapping create(final String name, final long length)
    {
        checkLoaded();
        final int fd = LibC.memfd_create(name, LibCLayout.MFD_CLOEXEC);
        if (fd < 0)
        {
            throw new TransportException("shm: memfd_create failed, errno " + LibC.errno());
        }
        if (LibC.ftruncate(fd, length) != 0)
        {
            final int errno = LibC.errno();
            LibC.close(fd);
            throw new TransportException("shm: ftruncate(" + length + ") failed, errno " + errno);
        }
        final long addr = LibC.mmap(0, length, LibCLayout.PROT_READ | LibCLayout.PROT_WRITE, LibCLayout.MAP_SHARED, fd, 0);
        if (addr == LibCLayout.MAP_FAILED)
        {
            final int errno = LibC.errno();
            LibC.close(fd);
            throw new TransportException("shm: mmap of " + length + " bytes failed, errno " + errno);
        }
        return new SharedMapping(fd, addr, length, addr, length);
    }

    /**
     * Map {@code length} bytes at {@code offset} of the memory file {@code fd} (which this mapping then owns)
     * read-write and shared: the other side of a connection's rings.
     */
    static SharedMapping mapReadWrite(final int fd, final long offset, final long length)
    {
        return map(fd, offset, length, LibCLayout.PROT_READ | LibCLayout.PROT_WRITE);
    }

    /**
     * Map {@code length} bytes at {@code offset} of the memory file {@code fd} (which this mapping then owns)
     * read-only: a peer's registered region. Any store to it faults.
     */
    static SharedMapping mapReadOnly(final int fd, final long offset, final long length)
    {
        return map(fd, offset, length, LibCLayout.PROT_READ);
    }

    private static SharedMapping map(final int fd, final long offset, final long length, final int prot)
    {
        final long pageOffset = offset & ~(PAGE - 1);
        final long slack = offset - pageOffset;
        final long mapped = slack + length;
        final long addr = LibC.mmap(0, mapped, prot, LibCLayout.MAP_SHARED, fd, pageOffset);
        if (addr == LibCLayout.MAP_FAILED)
        {
            final int errno = LibC.errno();
            LibC.close(fd);
            throw new TransportException("shm: mmap of a peer's memory (" + length + " bytes at " + offset +
                ") failed, errno " + errno);
        }
        return new SharedMapping(fd, addr, mapped, addr + slack, length);
    }

    static void checkLoaded()
    {
        if (LibC.loadFailure() != null)
        {
            throw new TransportException("shm: libc could not be bound: " + LibC.loadFailure());
        }
    }

    /** The first byte of the mapping in this process. */
    public long address()
    {
        return address;
    }

    public long length()
    {
        return length;
    }

    /** The memory file's descriptor (owned by this mapping). */
    int fd()
    {
        return fd;
    }

    /** A view of the whole mapping (at most 2 GiB). */
    public UnsafeBuffer buffer()
    {
        return new UnsafeBuffer(address, (int)Math.min(length, Integer.MAX_VALUE - 8));
    }

    /** Unmap and close the descriptor; the memory lives on while another process maps it. Idempotent. */
    @Override
    public synchronized void close()
    {
        if (!closed)
        {
            closed = true;
            LibC.munmap(mappedAddress, mappedLength);
            LibC.close(fd);
        }
    }
}

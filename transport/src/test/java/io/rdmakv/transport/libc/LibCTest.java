package io.rdmakv.transport.libc;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The libc binding's calls as the verbs completion channel uses them, on an eventfd (no device needed). */
class LibCTest
{
    @Test
    @Timeout(10)
    void shouldMakeABlockingDescriptorNonBlocking()
    {
        assertTrue(LibC.isLoaded(), () -> "libc: " + LibC.loadFailure());
        final int fd = LibC.eventfd(0, LibCLayout.EFD_CLOEXEC); // blocking, like a completion channel's fd
        assertTrue(fd >= 0, "eventfd: errno " + LibC.errno());
        try
        {
            assertEquals(0, LibC.fcntl(fd, LibCLayout.F_GETFL, 0) & LibCLayout.O_NONBLOCK);
            assertEquals(0, LibC.setNonBlocking(fd));
            assertEquals(LibCLayout.O_NONBLOCK, LibC.fcntl(fd, LibCLayout.F_GETFL, 0) & LibCLayout.O_NONBLOCK);
            final UnsafeBuffer buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
            assertEquals(-1, LibC.read(fd, buffer.addressOffset(), 8), "an empty eventfd must not block the read");
            assertEquals(LibCLayout.EAGAIN, LibC.errno());
            assertEquals(0, LibC.setNonBlocking(fd), "idempotent");
        }
        finally
        {
            LibC.close(fd);
        }
    }
}

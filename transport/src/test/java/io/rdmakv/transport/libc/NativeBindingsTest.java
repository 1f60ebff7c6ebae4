package io.rdmakv.transport.libc;

import org.agrona.BufferUtil;
import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The binding the process chose, and its data-path libc calls done for real: on JDK 17 (or a jar without
 * {@code META-INF/versions/22}) they are JNA's, on JDK 22+ with the multi-release classes FFM's (what .ci/run runs on
 * JDK 25). The descriptors are made with {@link LibC} (JNA), as the transport makes them.
 */
class NativeBindingsTest
{
    /** What a JDK 22+ loads instead of the JDK 17 class, when the build put it there (the jdk22-ffm profile). */
    private static final String VERSIONED_CLASS = "META-INF/versions/22/io/rdmakv/transport/libc/NativeBindings.class";

    @Test
    void shouldChooseFfmOnJdk22WithTheMultiReleaseClassesAndJnaOtherwise()
    {
        final boolean versioned = NativeBindings.class.getClassLoader().getResource(VERSIONED_CLASS) != null;
        final boolean forcedJna = "jna".equalsIgnoreCase(System.getProperty(NativeBindings.PROPERTY, "auto"));
        final String expected = Runtime.version().feature() >= 22 && versioned && !forcedJna ?
            NativeBindings.FFM : NativeBindings.JNA;
        assertEquals(expected, NativeBindings.name(), NativeBindings.description());
        assertEquals(expected, NativeBindings.libc().name());
        assertEquals(expected.equals(NativeBindings.FFM), NativeBindings.isFfm());
        assertTrue(NativeBindings.description().startsWith(expected + " (JDK " + Runtime.version().feature()),
            NativeBindings.description());
        final String expectedBySurefire = System.getProperty("rdmakv.test.expectNative");
        if (expectedBySurefire != null)
        {
            assertEquals(expectedBySurefire, NativeBindings.name(), "the build's profile says which binding it made");
        }
    }

    @Test
    @Timeout(10)
    void shouldWriteReadAndPollAnEventFdThroughTheChosenBinding()
    {
        final LibcCalls calls = NativeBindings.libc();
        final int fd = LibC.eventfd(0, LibCLayout.EFD_NONBLOCK | LibCLayout.EFD_CLOEXEC);
        assertTrue(fd >= 0, "eventfd: errno " + LibC.errno());
        final UnsafeBuffer b = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
        final long base = b.addressOffset();
        try
        {
            assertEquals(-1, calls.eventfdRead(fd, base + 16), "nothing written yet: EAGAIN, never a block");

            b.putInt(LibCLayout.POLLFD_FD, fd);
            b.putShort(LibCLayout.POLLFD_EVENTS, (short)LibCLayout.POLLIN);
            assertEquals(0, calls.poll(base, 1, 0), "not signalled: poll times out");

            b.putLong(24, 5L);
            assertEquals(8, calls.eventfdWrite(fd, base + 24));
            b.putLong(24, 2L);
            assertEquals(8, calls.eventfdWrite(fd, base + 24));

            b.putShort(LibCLayout.POLLFD_REVENTS, (short)0);
            assertEquals(1, calls.poll(base, 1, 1000));
            assertEquals(LibCLayout.POLLIN, b.getShort(LibCLayout.POLLFD_REVENTS) & LibCLayout.POLLIN);

            assertEquals(8, calls.eventfdRead(fd, base + 16));
            assertEquals(7L, b.getLong(16), "the counter is the sum of the writes");
            assertEquals(-1, calls.eventfdRead(fd, base + 16), "a read resets it");
        }
        finally
        {
            LibC.close(fd);
        }
    }

    @Test
    @Timeout(10)
    void shouldReportPollsErrnoOnThisThread()
    {
        final LibcCalls calls = NativeBindings.libc();
        final UnsafeBuffer b = new UnsafeBuffer(BufferUtil.allocateDirectAligned(64, 64));
        // nfds above RLIMIT_NOFILE: EINVAL (22) before the kernel reads anything.
        assertEquals(-1, calls.poll(b.addressOffset(), Integer.MAX_VALUE, 0));
        assertEquals(22, calls.errno());
    }

    @Test
    @Timeout(10)
    void shouldSeeASignalledEventFdInEpollWithoutWaiting()
    {
        final LibcCalls calls = NativeBindings.libc();
        final int epfd = LibC.epoll_create1(LibCLayout.EPOLL_CLOEXEC);
        final int fd = LibC.eventfd(0, LibCLayout.EFD_NONBLOCK | LibCLayout.EFD_CLOEXEC);
        final UnsafeBuffer b = new UnsafeBuffer(BufferUtil.allocateDirectAligned(256, 64));
        try
        {
            assertTrue(epfd >= 0 && fd >= 0, "epoll_create1/eventfd: errno " + LibC.errno());
            b.putInt(0, LibCLayout.EPOLLIN);
            b.putLong(4, fd);
            assertEquals(0, LibC.epoll_ctl(epfd, LibCLayout.EPOLL_CTL_ADD, fd, b.addressOffset()));
            assertEquals(0, calls.epollWaitNow(epfd, b.addressOffset() + 64, 8));
            b.putLong(32, 1L);
            assertEquals(8, calls.eventfdWrite(fd, b.addressOffset() + 32));
            assertEquals(1, calls.epollWaitNow(epfd, b.addressOffset() + 64, 8));
            assertEquals(fd, (int)b.getLong(64 + 4), "epoll_event.data (packed, at 4) names the eventfd");
        }
        finally
        {
            LibC.close(fd);
            LibC.close(epfd);
        }
    }
}

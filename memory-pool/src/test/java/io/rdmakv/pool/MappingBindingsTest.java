package io.rdmakv.pool;

import org.agrona.concurrent.UnsafeBuffer;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The arena's mapping calls in the binding the process chose (JNA on JDK 17, FFM on JDK 22+ from the multi-release
 * classes), done for real on a small anonymous mapping: mmap, write, mlock, madvise, munlock, munmap, and an errno.
 */
class MappingBindingsTest
{
    private static final String VERSIONED_CLASS = "META-INF/versions/22/io/rdmakv/pool/MappingBindings.class";
    private static final long PAGE = 4096;

    @Test
    void shouldChooseFfmOnJdk22WithTheMultiReleaseClassesAndJnaOtherwise()
    {
        final boolean versioned = MappingBindings.class.getClassLoader().getResource(VERSIONED_CLASS) != null;
        final boolean forcedJna = "jna".equalsIgnoreCase(System.getProperty(MappingBindings.PROPERTY, "auto"));
        final String expected = Runtime.version().feature() >= 22 && versioned && !forcedJna ?
            MappingBindings.FFM : MappingBindings.JNA;
        assertEquals(expected, MappingBindings.name(), MappingBindings.description());
        assertEquals(expected, MappingBindings.calls().name());
        final String expectedBySurefire = System.getProperty("rdmakv.test.expectNative");
        if (expectedBySurefire != null)
        {
            assertEquals(expectedBySurefire, MappingBindings.name(), "the build's profile says which binding it made");
        }
    }

    @Test
    void shouldMapLockAdviseUnlockAndUnmapASmallRegion()
    {
        final MappingCalls calls = MappingBindings.calls();
        final long length = 4 * PAGE;
        final long address = calls.mmap(length, LibC.PROT_READ | LibC.PROT_WRITE,
            LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS, -1, 0);
        assertNotEquals(LibC.MAP_FAILED, address, () -> "mmap: errno " + calls.errno());
        assertEquals(0, address % PAGE);
        final UnsafeBuffer view = new UnsafeBuffer(address, (int)length);
        view.putLong(0, 0x1122334455667788L);
        view.putLong((int)length - 8, 42L);
        assertEquals(0x1122334455667788L, view.getLong(0));

        assertEquals(0, calls.mlock(address, length), () -> "mlock of 16 KiB: errno " + calls.errno());
        final int advised = calls.madvise(address, length, LibC.MADV_HUGEPAGE);
        assertTrue(advised == 0 || calls.errno() == 22, "madvise: 0, or EINVAL without transparent huge pages");
        assertEquals(0, calls.munlock(address, length), () -> "munlock: errno " + calls.errno());
        assertEquals(42L, view.getLong((int)length - 8));
        assertEquals(0, calls.munmap(address, length), () -> "munmap: errno " + calls.errno());
    }

    @Test
    void shouldReportErrnoOfAFailedCallOnThisThread()
    {
        final MappingCalls calls = MappingBindings.calls();
        assertEquals(-1, calls.munmap(PAGE + 1, PAGE), "an unaligned address");
        assertEquals(22, calls.errno(), "EINVAL");
        assertEquals(LibC.MAP_FAILED, calls.mmap(0, LibC.PROT_READ, LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS, -1, 0));
        assertEquals(22, calls.errno(), "a zero length: EINVAL");
    }
}

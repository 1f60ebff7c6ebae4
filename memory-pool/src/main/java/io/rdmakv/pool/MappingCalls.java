package io.rdmakv.pool;

/**
 * The arena's mapping calls ({@code mmap}, {@code munmap}, {@code mlock}, {@code munlock}, {@code madvise}) in one of
 * two bindings: JNA ({@link LibC}, every JDK) or FFM ({@code java.lang.foreign}, JDK 22+, from the jar's
 * {@code META-INF/versions/22}), chosen once by {@link MappingBindings}. The rest of {@link LibC} (memory files,
 * limits, {@code strerror}) stays on JNA. Addresses and lengths are {@code long} (LP64). {@link #errno()} is the
 * {@code errno} this binding's last call on this thread left.
 */
interface MappingCalls
{
    /** "FFM" or "JNA". */
    String name();

    /** {@code mmap(NULL, length, prot, flags, fd, offset)}: the address, or {@link LibC#MAP_FAILED}. */
    long mmap(long length, int prot, int flags, int fd, long offset);

    int munmap(long addr, long length);

    int mlock(long addr, long length);

    int munlock(long addr, long length);

    int madvise(long addr, long length, int advice);

    int errno();
}

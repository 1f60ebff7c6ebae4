package io.rdmakv.pool;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;

/**
 * The few libc calls the arena needs, bound through JNA interface mapping (no native code is compiled by the build).
 * Addresses and lengths are passed as {@code long}: this module targets 64-bit Linux (LP64), where {@code void*},
 * {@code size_t} and {@code off_t} are all 64 bits wide. {@code errno} is read with {@link Native#getLastError()}.
 */
interface LibC extends Library
{
    /** Linux generic constants (identical on x86-64 and aarch64). */
    int PROT_READ = 0x1;
    int PROT_WRITE = 0x2;
    int MAP_SHARED = 0x01;
    int MAP_PRIVATE = 0x02;
    int MFD_CLOEXEC = 0x1;
    int MFD_HUGETLB = 0x4;
    int MAP_ANONYMOUS = 0x20;
    int MAP_NORESERVE = 0x4000;
    int MAP_HUGETLB = 0x40000;
    int MADV_HUGEPAGE = 14;
    int RLIMIT_MEMLOCK = 8;
    int RLIMIT_NOFILE = 7;
    long MAP_FAILED = -1L;
    /** {@code RLIM_INFINITY}: all bits set in an unsigned 64-bit {@code rlim_t}. */
    long RLIM_INFINITY = -1L;

    int EPERM = 1;
    int ENOMEM = 12;
    int EAGAIN = 11;

    LibC INSTANCE = Native.load("c", LibC.class);

    long mmap(Pointer addr, long length, int prot, int flags, int fd, long offset);

    /** {@code int memfd_create(const char *name, unsigned int flags)}: an anonymous memory file. */
    int memfd_create(String name, int flags);

    /** {@code int ftruncate(int fd, off_t length)} */
    int ftruncate(int fd, long length);

    /** {@code int close(int fd)} */
    int close(int fd);

    int munmap(long addr, long length);

    int mlock(long addr, long length);

    int munlock(long addr, long length);

    int madvise(long addr, long length, int advice);

    /** {@code struct rlimit { rlim_t rlim_cur; rlim_t rlim_max; }}: two unsigned 64-bit words. */
    int getrlimit(int resource, Pointer rlimit);

    /** {@code int setrlimit(int resource, const struct rlimit *rlim)}, same layout as {@link #getrlimit}. */
    int setrlimit(int resource, Pointer rlimit);

    String strerror(int errnum);
}

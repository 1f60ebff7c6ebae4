package io.rdmakv.pool;

/** Which huge-page backing a {@link PinnedArena} asks for; each falls back to normal pages when not available. */
public enum HugePages
{
    /** Normal pages only. */
    NONE,
    /** {@code madvise(MADV_HUGEPAGE)} on the mapping, leaving the choice to transparent huge pages (khugepaged). */
    TRANSPARENT,
    /**
     * {@code MAP_HUGETLB} from the pre-reserved pool ({@code vm.nr_hugepages}); the mapping length is rounded up to
     * 2 MiB. If the kernel refuses (no pages reserved), one log line says so and normal pages are used instead.
     */
    EXPLICIT
}

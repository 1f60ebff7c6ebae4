package io.rdmakv.pool;

/** Whether a {@link PinnedArena} must, may or must not lock its pages in memory ({@code mlock}). */
public enum PinPolicy
{
    /** Refuse to map (throw {@link MemlockLimitException}) unless every page can be locked. The RDMA server's mode. */
    REQUIRED,
    /** Try to lock; on failure log one warning with the same facts as {@link MemlockLimitException} and go on. */
    BEST_EFFORT,
    /** Never call {@code mlock}: for the TCP transport, which does not need pinned memory. */
    OFF
}

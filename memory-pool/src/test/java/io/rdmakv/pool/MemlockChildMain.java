package io.rdmakv.pool;

/**
 * Run in a child JVM by {@link MemlockRefusalTest} under a lowered {@code RLIMIT_MEMLOCK}:
 * {@code <policy> <bytes> <precheck true|false>}. Prints "mapped pinned=<bool>" and exits 0 on success; prints the
 * refusal message to stderr and exits 3 on {@link MemlockLimitException}.
 */
public final class MemlockChildMain
{
    private MemlockChildMain()
    {
    }

    public static void main(final String[] args)
    {
        final PinPolicy policy = PinPolicy.valueOf(args[0]);
        final long size = Long.parseLong(args[1]);
        final boolean precheck = Boolean.parseBoolean(args[2]);
        try (PinnedArena arena = PinnedArena.map(size, policy, HugePages.NONE, 1 << 30, precheck))
        {
            arena.partitions().partition(0).setMemory(0, (int)size, (byte)0x11);
            System.out.println("mapped pinned=" + arena.isPinned());
        }
        catch (final MemlockLimitException ex)
        {
            System.err.println(ex.getMessage());
            System.exit(3);
        }
    }
}

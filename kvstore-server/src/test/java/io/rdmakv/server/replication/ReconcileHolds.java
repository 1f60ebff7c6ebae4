package io.rdmakv.server.replication;

import java.util.function.IntPredicate;

/** Test access to {@link ReconcileHold}: hold the reconciles of chosen in-process nodes before their queries. */
public final class ReconcileHolds
{
    private ReconcileHolds()
    {
    }

    /** Hold the reconciles of the nodes {@code nodes} accepts until {@link #letGo}. */
    public static void hold(final IntPredicate nodes)
    {
        ReconcileHold.holdInProcess(nodes);
    }

    /** Hold no reconcile any more (the held ones send their queries at their next duty cycle). */
    public static void letGo()
    {
        ReconcileHold.holdInProcess(null);
    }
}

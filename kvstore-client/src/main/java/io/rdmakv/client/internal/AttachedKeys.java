package io.rdmakv.client.internal;

import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.RemoteKey;

import java.util.function.Consumer;

/**
 * A test's view of what each data session attached with: its endpoint and the key its one-sided reads use (a memory
 * window's, good over that endpoint only, or the pool's). The SoftRoCE suite reads with a revoked session's key to see
 * the device refuse it. Not for applications: nothing is observed unless a test sets an observer.
 */
public final class AttachedKeys
{
    /**
     * One attached session.
     *
     * @param nodeId   the node.
     * @param endpoint its data endpoint.
     * @param readKey  the key its one-sided reads use; null when it has none (GETs by RPC).
     */
    public record Attached(int nodeId, Endpoint endpoint, RemoteKey readKey)
    {
    }

    private static volatile Consumer<Attached> observer;

    private AttachedKeys()
    {
    }

    /** Tell {@code observer} of every session attached from now on (any client of this JVM); null: stop. */
    public static void observe(final Consumer<Attached> observer)
    {
        AttachedKeys.observer = observer;
    }

    static void attached(final int nodeId, final Endpoint endpoint, final RemoteKey readKey)
    {
        final Consumer<Attached> o = observer;
        if (o != null)
        {
            o.accept(new Attached(nodeId, endpoint, readKey));
        }
    }
}

package io.rdmakv.transport;

import java.util.List;

/**
 * The memory one worker of a transport registers with the device when it is created, and so pins against
 * {@code RLIMIT_MEMLOCK} for as long as it lives (on verbs: the endpoint-buffer block), as a transport opened with a
 * given {@link TransportConfig} would size it. Known before anything is opened, so that a server and
 * {@code rdmakv doctor} can add it to the pool and compare the sum with the limit up front.
 *
 * @param bytes     bytes pinned per worker; 0 when the transport pins nothing per worker (tcp).
 * @param breakdown how {@code bytes} is made, with the settings and their values, e.g.
 *                  {@code verbs.maxEndpoints 16 x 5124 KiB per endpoint ((verbs.sendDepth 128 + ...)}.
 * @param settings  the settings that make it smaller, each with its value, e.g. {@code verbs.maxEndpoints (now 16)}.
 */
public record WorkerPinning(long bytes, String breakdown, List<String> settings)
{
    /** A transport whose workers pin nothing of their own. */
    public static final WorkerPinning NONE = new WorkerPinning(0, "nothing", List.of());

    public WorkerPinning
    {
        if (bytes < 0)
        {
            throw new IllegalArgumentException("pinned bytes must not be negative: " + bytes);
        }
        settings = List.copyOf(settings);
    }

    /** True when a worker pins nothing. */
    public boolean isNone()
    {
        return bytes == 0;
    }
}

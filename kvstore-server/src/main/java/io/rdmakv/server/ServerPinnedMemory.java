package io.rdmakv.server;

import io.rdmakv.pool.ArenaException;
import io.rdmakv.pool.ByteSizes;
import io.rdmakv.pool.MemlockLimit;
import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.WorkerPinning;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.List;

/**
 * Everything a server node registers with its transport, and so pins against {@code RLIMIT_MEMLOCK}: the pool and,
 * per worker, what the transport registers when the worker is created. On verbs that is the pool (one memory
 * region, whatever {@code pool.pin} says) plus the request worker's endpoint-buffer block; on tcp the workers pin
 * nothing and only the pool counts (when it is pinned at all).
 *
 * <pre>
 *   total = pool.size + workers x per worker
 *   verbs defaults: 64 MiB + 1 x (verbs.maxEndpoints 16 x 5124 KiB) = 64 MiB + 80.1 MiB = 144.1 MiB
 * </pre>
 *
 * The server checks it before it maps anything ({@link #check}) and {@code rdmakv doctor} judges the same figures,
 * so both name the same parts and the same settings.
 *
 * @param poolBytes {@code pool.size}.
 * @param workers   workers the node creates (one: the request worker).
 * @param perWorker what each registers at creation, as the transport sizes it.
 */
public record ServerPinnedMemory(long poolBytes, int workers, WorkerPinning perWorker)
{
    private static final Logger LOG = LoggerFactory.getLogger(ServerPinnedMemory.class);

    /** A node creates one worker (its request worker). */
    public static final int SERVER_WORKERS = 1;

    public ServerPinnedMemory
    {
        if (poolBytes <= 0 || workers < 0)
        {
            throw new IllegalArgumentException("pool bytes must be positive and workers not negative: " + poolBytes +
                ", " + workers);
        }
    }

    /**
     * What a node with {@code config} pins on {@code provider}, sized from the same transport settings the node
     * opens the transport with ({@link KvServer#transportConfig}).
     *
     * @throws io.rdmakv.transport.TransportException when a transport setting is invalid, naming it.
     */
    public static ServerPinnedMemory of(final ServerConfig config, final TransportProvider provider)
    {
        return new ServerPinnedMemory(config.poolSize(), SERVER_WORKERS,
            provider.workerPinning(KvServer.transportConfig(config)));
    }

    /** Bytes pinned by the workers together. */
    public long workerBytes()
    {
        return workers * perWorker.bytes();
    }

    /** Everything: the pool plus the workers. */
    public long totalBytes()
    {
        return poolBytes + workerBytes();
    }

    /** True when the workers pin memory of their own (verbs), so the pool alone is not the whole figure. */
    public boolean hasWorkerBuffers()
    {
        return !perWorker.isNone() && workers > 0;
    }

    /**
     * The parts and the sum: {@code pool.size 64.0 MiB (67108864 bytes) + endpoint buffers 1 worker x 80.1 MiB
     * (verbs.maxEndpoints 16 x 5124 KiB per endpoint (...)) = 144.1 MiB (151060480 bytes)}; the pool alone when the
     * workers pin nothing.
     */
    public String parts()
    {
        final String pool = "pool.size " + ByteSizes.withExactBytes(poolBytes);
        if (!hasWorkerBuffers())
        {
            return pool;
        }
        return pool + " + endpoint buffers " + workers + " worker" + (workers == 1 ? "" : "s") + " x " +
            ByteSizes.withExactBytes(perWorker.bytes()) + " (" + perWorker.breakdown() + ") = " +
            ByteSizes.withExactBytes(totalBytes());
    }

    /** The settings that pin less: {@code pool.size} and the transport's, each with its value. */
    public List<String> shrinkSettings()
    {
        final List<String> settings = new ArrayList<>();
        settings.add("pool.size (now " + ByteSizes.humanReadable(poolBytes) + ")");
        settings.addAll(perWorker.settings());
        return settings;
    }

    /** True when the kernel lets this process pin it all. */
    public boolean fits(final MemlockLimit limit)
    {
        return limit.allows(totalBytes());
    }

    /**
     * The refusal: the parts, both limits and the fixes, the pool's own wording ({@link MemlockLimit#describeRefusal})
     * plus the settings that pin less.
     */
    public String describeRefusal(final MemlockLimit limit)
    {
        final String cause = hasWorkerBuffers() ?
            "the transport registers (pins) the pool and each worker's endpoint buffers against RLIMIT_MEMLOCK, " +
                "which is smaller than " + parts() :
            "RLIMIT_MEMLOCK is smaller than the pool";
        return limit.describeRefusal(hasWorkerBuffers() ? "the pool and the endpoint buffers" : "the memory pool",
            totalBytes(), cause) + "; or pin less: lower " + sentence(shrinkSettings());
    }

    /**
     * Refuse to start when the limit cannot hold everything the node registers; nothing to check when the workers
     * pin nothing of their own (the pool's own check then decides, by {@code pool.pin}).
     *
     * @throws ServerStartException with {@link #describeRefusal}.
     */
    public void check(final MemlockLimit limit)
    {
        if (hasWorkerBuffers() && !fits(limit))
        {
            throw new ServerStartException(describeRefusal(limit), null);
        }
    }

    private static String sentence(final List<String> items)
    {
        if (items.size() == 1)
        {
            return items.get(0);
        }
        return String.join(", ", items.subList(0, items.size() - 1)) + " or " + items.get(items.size() - 1);
    }

    /**
     * At a node's start, on verbs the pool and the worker's endpoint buffers are all registered, so pinned: refuse before mapping
     * anything when the memlock limit cannot hold them together, naming the parts and the settings (otherwise the
     * pool would fit and the worker's {@code ibv_reg_mr} would fail after the pool is mapped and warmed up).
     */
    void checkAtStart()
    {
        if (!hasWorkerBuffers())
        {
            return;
        }
        final MemlockLimit limit;
        try
        {
            limit = MemlockLimit.current();
        }
        catch (final ArenaException | LinkageError ex)
        {
            LOG.warn("cannot read RLIMIT_MEMLOCK ({}); not checking {} against it", ex.getMessage(), parts());
            return;
        }
        check(limit);
        LOG.info("pinned memory: {} within {}", parts(), limit);
    }
}

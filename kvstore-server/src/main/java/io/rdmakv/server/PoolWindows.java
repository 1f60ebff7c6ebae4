package io.rdmakv.server;

import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.handler.SessionWindows;
import io.rdmakv.transport.Endpoint;
import io.rdmakv.transport.MemoryRegion;
import io.rdmakv.transport.MemoryWindow;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.Worker;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.concurrent.CompletableFuture;

/**
 * Whether the node's data sessions read its pool through memory windows of their own ({@code auth.memoryWindows},
 * issue 33 item 3), decided once at start and logged with why, as the transport selection is; and the binder that
 * binds one over the whole pool on a session's endpoint of the main transport.
 */
final class PoolWindows
{
    private static final Logger LOG = LoggerFactory.getLogger(PoolWindows.class);

    private PoolWindows()
    {
    }

    /**
     * @return true when the setting allows windows and the main transport has them (then the pool is registered with
     *         BIND_WINDOWS and the WELCOME carries no key for it).
     */
    static boolean decide(final ServerConfig config, final String transportName,
        final TransportCapabilities capabilities)
    {
        final boolean has = capabilities.has(TransportCapability.MEMORY_WINDOWS);
        if (!config.memoryWindows())
        {
            LOG.info("memory windows: off (auth.memoryWindows=off): every {} session gets the pool's key, valid " +
                "for the node's life{}", transportName, has ? "" : " (the transport has no windows anyway)");
            return false;
        }
        if (!has)
        {
            LOG.info("memory windows: not used (auth.memoryWindows=auto): {} has none{}", transportName,
                "verbs".equals(transportName) ? " on this device (no type 2 windows, or no alloc_mw)" :
                "; one-sided reads are the transport's own (tcp: emulated and checked by the node; shm: the mapping)");
            return false;
        }
        LOG.info("memory windows: on (auth.memoryWindows=auto, {} has type 2 windows): each data session reads " +
            "through its own, closed when the session ends or its user is removed or changed", transportName);
        return true;
    }

    /** Binds a window over {@code [poolAddress, +poolSize)} for the endpoints of {@code worker} (the main one). */
    static SessionWindows.Binder binder(final Worker worker, final MemoryRegion region, final long poolAddress,
        final long poolSize)
    {
        return new SessionWindows.Binder()
        {
            @Override
            public boolean serves(final Endpoint endpoint)
            {
                return endpoint.worker() == worker; // a side transport's (tcp, shm) has no windows
            }

            @Override
            public CompletableFuture<MemoryWindow> bind(final Endpoint endpoint)
            {
                return endpoint.bindWindow(region, poolAddress, poolSize);
            }
        };
    }
}

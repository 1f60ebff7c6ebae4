package io.rdmakv.client.internal;

import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.Welcome;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;

/**
 * The client's current cluster map and how it is refreshed: from the node a WRONG_NODE names, from the newest map any
 * known node has (a replicated cluster), or from one node per round in the background. A map only replaces the
 * current one when its epoch is not lower. {@link #current()} may be read from any thread; a refresh handshakes and so
 * blocks, on a caller's thread or the router's redirect thread. Maps change under the router's connect lock, so a map
 * never changes while the router connects a node by it.
 */
final class ClusterMapRefresher
{
    /** Logs as the router it refreshes for. */
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRouter.class);

    /**
     * A refresh's handshake with one node waits at most this long by default (a stopped node accepts and never
     * answers); {@code KvClientBuilder.mapRefreshHandshakeTimeout} sets it.
     */
    static final long REFRESH_HANDSHAKE_NANOS = 500_000_000L;

    private final KvClientConfig config;
    private final ControlPlaneClient control;
    private final Hello hello;
    private final Object connectLock;
    private volatile ClusterMap map;
    /** Periodic refreshes so far (the redirect thread's only): picks the node asked next. */
    private int refreshes;

    /**
     * @param connectLock the router's connect lock, held while a map is replaced.
     */
    ClusterMapRefresher(final KvClientConfig config, final ControlPlaneClient control, final Hello hello,
        final Object connectLock)
    {
        this.config = config;
        this.control = control;
        this.hello = hello;
        this.connectLock = connectLock;
    }

    /** The map requests are routed by; null before the first seed answered. */
    ClusterMap current()
    {
        return map;
    }

    /** Take {@code first} whatever its epoch (a seed's map at bootstrap). */
    void replace(final ClusterMap first)
    {
        map = first;
    }

    /** Use {@code candidate} unless the map we have is newer. */
    void adopt(final ClusterMap candidate)
    {
        synchronized (connectLock)
        {
            if (candidate.epoch() >= map.epoch())
            {
                map = candidate;
            }
        }
    }

    /** Take the cluster map from the node at {@code address}. */
    void refresh(final HostPort address)
    {
        final Welcome welcome = control.handshake(address, hello, config.connectTimeout());
        adopt(ClusterMap.from(welcome, address));
        LOG.info("cluster map refreshed from node {} at {}", welcome.nodeId(), address);
    }

    /**
     * A replicated cluster: ask {@code target} (may be null or garbage), then every node the map names, then the
     * seeds, until one answers with a newer map than ours; keep the newest that answered.
     *
     * @throws KvException when no node answered at all.
     */
    void refreshNewest(final String target)
    {
        final long had = map.epoch();
        final LinkedHashSet<HostPort> candidates = new LinkedHashSet<>();
        if (target != null)
        {
            try
            {
                candidates.add(HostPort.parse(target));
            }
            catch (final IllegalArgumentException ex)
            {
                // Not an address: ask the others.
            }
        }
        candidates.addAll(map.addresses());
        candidates.addAll(config.seeds());
        final Duration wait = refreshHandshakeTimeout();
        KvException last = null;
        boolean answered = false;
        for (final HostPort address : candidates)
        {
            try
            {
                final Welcome welcome = control.handshake(address, hello, wait);
                answered = true;
                adopt(ClusterMap.from(welcome, address));
                if (welcome.clusterEpoch() > had)
                {
                    LOG.info("cluster map refreshed to epoch {} from node {} at {}", welcome.clusterEpoch(),
                        welcome.nodeId(), address);
                    return;
                }
            }
            catch (final KvException ex)
            {
                last = ex;
            }
        }
        if (!answered)
        {
            throw last != null ? last : KvException.of(KvError.CONNECTION_FAILED, "no node of the cluster answered");
        }
    }

    /** The periodic refresh of a replicated cluster's map (on the redirect thread): one node per round, in turn. */
    void refreshQuietly()
    {
        final List<HostPort> known = new ArrayList<>(map.addresses());
        if (known.isEmpty())
        {
            return;
        }
        final HostPort address = known.get(Math.floorMod(refreshes++, known.size()));
        try
        {
            adopt(ClusterMap.from(control.handshake(address, hello, refreshHandshakeTimeout()), address));
        }
        catch (final RuntimeException ex)
        {
            LOG.debug("periodic cluster map refresh failed: {}", ex.toString());
        }
    }

    private Duration refreshHandshakeTimeout()
    {
        final Duration refresh = config.refreshHandshakeTimeout() != null ? config.refreshHandshakeTimeout() :
            Duration.ofNanos(REFRESH_HANDSHAKE_NANOS);
        return Duration.ofNanos(Math.min(config.connectTimeout().toNanos(), refresh.toNanos()));
    }
}

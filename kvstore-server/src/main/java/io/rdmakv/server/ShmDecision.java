package io.rdmakv.server;

import io.rdmakv.server.config.ServerConfig;
import io.rdmakv.server.config.ShmServing;
import io.rdmakv.transport.TransportCapabilities;
import io.rdmakv.transport.TransportCapability;
import io.rdmakv.transport.TransportConfig;
import io.rdmakv.transport.TransportProvider;
import io.rdmakv.transport.select.TransportSelector;

/**
 * Whether a node serves {@code shm} beside its main transport, and why ({@code transport.serveShm}). {@code auto}
 * serves it where it is free:
 * <pre>
 *   main transport reads natively over a NIC (verbs)   no: the pool stays private memory, with the transparent
 *                                                          huge pages the NIC's translation wants
 *   pool.hugePages asks for huge pages                   no: a pool in a memory file does not get them
 *   shm unusable here (no memfd, no abstract socket)     no, with the cause
 *   host identity unreadable (/proc)                     no: no client could tell it shares the host
 *   otherwise (a tcp main transport)                     yes: clients on this host and network namespace pick it
 * </pre>
 * {@code true} serves it beside any main transport where it is usable; {@code false} never.
 *
 * @param provider the shm provider to open, or null when shm is not served beside the main transport.
 * @param reason   one sentence for the node's start-up log.
 */
record ShmDecision(TransportProvider provider, String reason)
{
    private static final String SHM = "shm";

    /**
     * Decide for a node.
     *
     * @param config       the node's settings ({@code transport.serveShm}, {@code pool.hugePages}).
     * @param main         the main transport.
     * @param selector     the transports on the class path.
     * @param hostIdentity this process's host identity ({@code HostIdentity.current()}; empty when unknown).
     * @return the decision.
     */
    static ShmDecision decide(final ServerConfig config, final TransportProvider main,
        final TransportSelector selector, final String hostIdentity)
    {
        final ShmServing serving = config.serveShm();
        final String setting = "transport.serveShm=" + serving.setting();
        if (SHM.equals(main.name()))
        {
            return no("shm is the main transport");
        }
        if (serving == ShmServing.OFF)
        {
            return no(setting);
        }
        if (serving == ShmServing.AUTO)
        {
            final TransportCapabilities caps = main.capabilities();
            if (caps.has(TransportCapability.READ_NATIVE) && !caps.has(TransportCapability.HOST_LOCAL))
            {
                return no(setting + ": not beside " + main.name() + ", whose adapter reads the pool: it stays " +
                    "private memory with the transparent huge pages the adapter's translation wants " +
                    "(transport.serveShm=true serves shm anyway)");
            }
            if (!"NONE".equals(config.hugePages()))
            {
                return no(setting + ": pool.hugePages=" + config.hugePages() + " asks for huge pages, which a pool " +
                    "in a memory file does not get (transport.serveShm=true serves shm anyway)");
            }
            if (hostIdentity.isEmpty())
            {
                return no(setting + ": this host's identity (boot id, network namespace) cannot be read from " +
                    "/proc, so no client could tell it shares the host");
            }
        }
        final TransportProvider shm = selector.providers().stream().filter(p -> SHM.equals(p.name())).findFirst()
            .orElse(null);
        if (shm == null)
        {
            return no(setting + ": the shm transport is not on the class path");
        }
        if (!shm.isAvailable())
        {
            return no(setting + ": shm is unusable here: " + shm.unavailabilityCause());
        }
        return new ShmDecision(shm, setting + (serving == ShmServing.AUTO ? ": the main transport is " +
            main.name() + ", to which the pool's kind of memory does not matter; clients on this host and in its " +
            "network namespace pick shm" : ""));
    }

    private static ShmDecision no(final String reason)
    {
        return new ShmDecision(null, reason);
    }

    /** Whether shm is served beside the main transport. */
    boolean serves()
    {
        return provider != null;
    }

    /**
     * How long a node's shm request thread (or the tcp event loop hosting its shm worker) polls its rings after work
     * before it blocks, unless {@code shm.spinMicros} says otherwise: a co-located client's next request, a few
     * microseconds after its answer, is then found without a wake-up. Clients keep the transport's default (none).
     */
    static final int NODE_SPIN_MICROS = 20;

    /**
     * The shm transport's setting for that window, by name: a node reaches its transports through properties only,
     * never their classes (LayeringTest); ShmDecisionTest checks it is the provider's {@code PROP_SPIN_MICROS}.
     */
    static final String SPIN_MICROS_PROPERTY = "shm.spinMicros";

    /**
     * Put the node's shm defaults into {@code tc} (the settings, applied after, override them; so does the JVM
     * property {@code rdmakv.transport.shm.spinMicros}).
     */
    static void nodeDefaults(final TransportConfig.Builder tc)
    {
        tc.property(SPIN_MICROS_PROPERTY, Integer.toString(Integer.getInteger(
            "rdmakv.transport." + SPIN_MICROS_PROPERTY, NODE_SPIN_MICROS)));
    }
}

package io.rdmakv.client.internal;

import io.rdmakv.client.HostPort;
import io.rdmakv.client.KvClientConfig;
import io.rdmakv.client.KvError;
import io.rdmakv.client.KvException;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.ProtocolException;
import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.protocol.wire.TransportAddress;
import io.rdmakv.protocol.wire.Welcome;
import io.rdmakv.transport.JvmAccess;
import io.rdmakv.transport.select.HostIdentity;
import io.rdmakv.transport.select.TransportSelector;
import io.rdmakv.transport.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/**
 * Which transport this client uses, agreed with the first seed that answers: the HELLO offers every transport this
 * side can use (best first; just the requested one when the client names one), the WELCOME lists every transport the
 * node serves, and {@link TransportSelector#negotiate} takes the best both have. A host-local transport ({@code shm})
 * counts only when the node's address of it carries this process's {@link HostIdentity} (same boot id, same network
 * namespace: its abstract socket is reachable from here); the node then still checks the session ticket on it.
 *
 * @param selection the chosen transport and why (the client's connect line states it).
 * @param offered   what the HELLO offered, best first (every later HELLO offers the same).
 * @param seed      the seed that answered.
 * @param welcome   its WELCOME (the router connects with it instead of a second handshake).
 */
record TransportNegotiation(TransportSelector.Selection selection, List<String> offered, HostPort seed,
    Welcome welcome)
{
    private static final Logger LOG = LoggerFactory.getLogger(TransportNegotiation.class);

    /**
     * Handshake with the seeds in order until one answers, and choose the transport with it.
     *
     * @param config  the client's settings (seeds, transport, credential).
     * @param control the control-plane client.
     * @return the agreement.
     * @throws KvException as the router's bootstrap: a REJECT or a wrong credential at once, else when no seed
     *                     answers.
     * @throws io.rdmakv.transport.TransportException when the requested transport is unusable here, or the node
     *                     serves nothing this side can use.
     */
    /**
     * With TLS on, the transports whose traffic it covers or that never leave the host: tcp and shm, not verbs (RDMA
     * traffic is not encrypted).
     *
     * @throws KvException {@link KvError#TRANSPORT_FAILED} when that leaves nothing (the builder asked for verbs).
     */
    private static List<String> tlsOnly(final KvClientConfig config, final List<String> usable)
    {
        if (!TlsSettings.of(config.transportProperties()).enabled() || !usable.contains("verbs"))
        {
            return usable;
        }
        final List<String> kept = usable.stream().filter(t -> !t.equals("verbs")).toList();
        if (kept.isEmpty())
        {
            throw KvException.of(KvError.TRANSPORT_FAILED, "transport verbs with TLS on: RDMA traffic is not " +
                "encrypted; use tcp (or auto), or turn TLS off");
        }
        LOG.info("TLS on: verbs not offered (RDMA traffic is not encrypted); offering {}", kept);
        return kept;
    }

    static TransportNegotiation with(final KvClientConfig config, final ControlPlaneClient control)
    {
        // A JVM without the flag Agrona needs fails here, naming it, before any connection (every transport needs it).
        JvmAccess.ensureAgronaAccess();
        final TransportSelector selector = TransportSelector.fromClassPath();
        final List<String> offered = tlsOnly(config, selector.usable(config.transport()));
        final Hello hello = new Hello(ControlFrameCodec.PROTOCOL_VERSION, offered, config.credential());
        KvException last = null;
        for (final HostPort seed : config.seeds())
        {
            final Welcome welcome;
            try
            {
                welcome = control.handshake(seed, hello, config.connectTimeout());
            }
            catch (final KvException ex)
            {
                if (ex.error() == KvError.REJECTED || ex.error() == KvError.AUTHENTICATION_FAILED)
                {
                    throw ex;
                }
                LOG.info("seed {} unusable: {}", seed, ex.getMessage());
                last = ex;
                continue;
            }
            final List<String> served = welcome.transports().stream().map(TransportAddress::transport).toList();
            return new TransportNegotiation(
                selector.negotiate(config.transport(), served, name -> onThisHost(welcome, name)), offered, seed,
                welcome);
        }
        throw KvException.of(last == null ? KvError.CONNECTION_FAILED : last.error(),
            "no seed node answered " + config.seeds() + (last == null ? "" : ": " + last.getMessage()), last);
    }

    /** Whether the node's address of {@code transport} carries this process's host identity. */
    static boolean onThisHost(final Welcome welcome, final String transport)
    {
        for (final TransportAddress a : welcome.transports())
        {
            try
            {
                if (a.transport().equals(transport) && HostIdentity.isThisHost(a.hostIdentity()))
                {
                    return true;
                }
            }
            catch (final ProtocolException ex)
            {
                LOG.debug("node {} sent a malformed {} address: {}", welcome.nodeId(), transport, ex.getMessage());
            }
        }
        return false;
    }
}

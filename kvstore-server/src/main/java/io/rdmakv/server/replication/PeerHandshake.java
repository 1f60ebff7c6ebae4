package io.rdmakv.server.replication;

import io.rdmakv.protocol.wire.ControlFrameCodec;
import io.rdmakv.protocol.wire.Hello;
import io.rdmakv.server.control.BlockingHello;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.List;

/**
 * A peer authenticates on another node's data port exactly as a client does: HELLO with the cluster's shared secret
 * on the control port (blocking, on a connector thread, never the request thread), then the WELCOME's session ticket
 * in the data endpoint's ATTACH; TLS 1.3 when the node has it ({@link BlockingHello}).
 */
final class PeerHandshake
{
    private PeerHandshake()
    {
    }

    /**
     * @param access the cluster secret ({@code auth.secret}; empty when the cluster runs open) and TLS.
     * @return the WELCOME's session ticket.
     * @throws IOException when the peer cannot be reached or refuses (REJECT, with its reason).
     */
    static byte[] ticket(final InetSocketAddress control, final String transport, final PeerAccess access,
        final int timeoutMillis)
        throws IOException
    {
        return BlockingHello.exchange(control, new Hello(ControlFrameCodec.PROTOCOL_VERSION, List.of(transport),
            access.helloCredential()), timeoutMillis, access.tls(), "peer").sessionTicket();
    }
}

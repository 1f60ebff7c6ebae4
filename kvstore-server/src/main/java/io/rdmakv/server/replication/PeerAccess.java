package io.rdmakv.server.replication;

import io.rdmakv.transport.tls.TlsSettings;

/**
 * How a node reaches its peers' control ports as a client would: the cluster's shared secret for HELLO and the
 * node's TLS settings (its certificate is offered to a peer that asks; the peer's is checked against
 * {@code tls.caFile}).
 *
 * @param secret the cluster secret ({@code auth.secret}), null or empty when the cluster runs open.
 * @param tls    the node's TLS settings ({@link TlsSettings#OFF} for plaintext).
 */
public record PeerAccess(byte[] secret, TlsSettings tls)
{
    /** The secret for HELLO: empty when there is none. */
    byte[] helloCredential()
    {
        return secret == null ? new byte[0] : secret;
    }
}

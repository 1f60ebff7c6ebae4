package io.rdmakv.server.cluster.ratis;

import io.rdmakv.transport.tls.ReloadingPemManagers;
import io.rdmakv.transport.tls.TlsSettings;
import org.apache.ratis.conf.Parameters;
import org.apache.ratis.grpc.GrpcConfigKeys;
import org.apache.ratis.grpc.GrpcTlsConfig;

/**
 * Ratis' own TLS on the coordination group (its gRPC channels: voter to voter, and every node's group client to the
 * voters), from the node's {@code tls.certFile}, {@code tls.keyFile} and {@code tls.caFile}: mutual authentication,
 * each side presenting its certificate and accepting only one the CA signed, and the dialling side checking the
 * peer's certificate names the address it dialled (the host of its {@code cluster.voters} entry). With TLS off the
 * group speaks in clear, as before. Ratis builds its SSL contexts once, so it is given managers rather than files
 * ({@link ReloadingPemManagers}): each new handshake of the group presents the certificate and checks the peer against
 * the CA as the files are then, without a restart (as the control port and the tcp path do with {@code ReloadingTls});
 * gRPC keeps its channels open, so a rotated certificate is presented from the next connection a voter or group client
 * makes (after a restart of a peer, a lost connection, or a new member).
 */
public final class RaftTls
{
    private RaftTls()
    {
    }

    /**
     * The Ratis parameters of a node with {@code tls}: null when TLS is off.
     *
     * @throws IllegalArgumentException naming the settings, when TLS is on without a certificate, key or CA: voters
     *                                  authenticate each other, so every node needs all three.
     */
    public static Parameters parameters(final TlsSettings tls)
    {
        if (tls == null || !tls.enabled())
        {
            return null;
        }
        if (tls.certFile() == null || tls.keyFile() == null || tls.caFile() == null)
        {
            throw new IllegalArgumentException("TLS on the coordination group (Ratis, mutual authentication between " +
                "nodes) needs " + TlsSettings.CERT_FILE + ", " + TlsSettings.KEY_FILE + " and " +
                TlsSettings.CA_FILE + " on every node of a cluster; set: " + tls.properties().keySet());
        }
        final ReloadingPemManagers managers = new ReloadingPemManagers(tls);
        final GrpcTlsConfig conf = new GrpcTlsConfig(managers.keyManager(), managers.trustManager(), true);
        final Parameters p = new Parameters();
        // One port serves voters, clients and admin calls: the same configuration for each of Ratis' channel kinds.
        GrpcConfigKeys.TLS.setConf(p, conf);
        GrpcConfigKeys.Server.setTlsConf(p, conf);
        GrpcConfigKeys.Client.setTlsConf(p, conf);
        GrpcConfigKeys.Admin.setTlsConf(p, conf);
        return p;
    }
}

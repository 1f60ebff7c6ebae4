package io.rdmakv.cli.cluster;

import io.rdmakv.client.HostPort;
import io.rdmakv.client.control.ControlPlaneClient;
import io.rdmakv.protocol.wire.Admin;
import io.rdmakv.protocol.wire.AdminReply;
import io.rdmakv.transport.tls.TlsSettings;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/** One ADMIN command to one node, answered or failed with a {@code KvException}. */
final class AdminCall
{
    private AdminCall()
    {
    }

    static AdminReply send(final String server, final String credential, final TlsSettings tls, final String command,
        final Duration timeout)
    {
        try (ControlPlaneClient control = new ControlPlaneClient(tls))
        {
            return control.admin(HostPort.parse(server), new Admin(credential == null ? new byte[0] :
                credential.getBytes(StandardCharsets.UTF_8), command), timeout);
        }
    }
}

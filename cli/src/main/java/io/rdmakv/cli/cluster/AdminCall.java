package io.rdmakv.cli.cluster;

import io.rdmakv.cli.SecretOptions;
import io.rdmakv.protocol.auth.Login;

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

    /** As the options say: the shared secret and, with {@code --user}, that user (SCRAM-SHA-256). */
    static AdminReply send(final String server, final SecretOptions credentials, final TlsSettings tls,
        final String command, final Duration timeout)
    {
        return send(server, credentials.secret(), credentials.login(), tls, command, timeout);
    }

    static AdminReply send(final String server, final String credential, final TlsSettings tls, final String command,
        final Duration timeout)
    {
        return send(server, credential, null, tls, command, timeout);
    }

    /** @param login the user to log in as first (the ADMIN then runs as that user), or null. */
    static AdminReply send(final String server, final String credential, final Login login, final TlsSettings tls,
        final String command, final Duration timeout)
    {
        try (ControlPlaneClient control = new ControlPlaneClient(tls, login))
        {
            return control.admin(HostPort.parse(server), new Admin(credential == null ? new byte[0] :
                credential.getBytes(StandardCharsets.UTF_8), command), timeout);
        }
    }
}

package io.rdmakv.server.config;

import io.rdmakv.protocol.SharedSecret;
import io.rdmakv.protocol.auth.UsersFile;
import io.rdmakv.transport.tls.ReloadingTls;
import io.rdmakv.transport.tls.TlsSettings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;

/**
 * A node's security settings: the shared secret a client presents in HELLO ({@code auth.secret}, or the first line of
 * {@code auth.secretFile}) and TLS on its control port and tcp data port ({@code tls.*}, {@link TlsSettings}). Each
 * setting is declared once in {@link SecurityKeys}.
 */
public final class SecuritySettings
{
    private static final Logger LOG = LoggerFactory.getLogger(SecuritySettings.class);

    private final byte[] secret;
    private final Path usersFile;
    private final TlsSettings tls;
    private final ReloadingTls tlsContexts;

    SecuritySettings(final Map<String, String> s)
    {
        final String inline = s.get(SecurityKeys.SECRET.name());
        final boolean hasInline = inline != null && !inline.isEmpty();
        final boolean hasFile = SecurityKeys.SECRET_FILE.isGiven(s);
        if (hasInline && hasFile)
        {
            throw new ConfigException(SecurityKeys.SECRET + " and " + SecurityKeys.SECRET_FILE + " are both set (" +
                SecurityKeys.SECRET + " may come from the " + SharedSecret.ENV + " environment variable): keep one");
        }
        final String text;
        try
        {
            text = hasFile ? SharedSecret.read(SecurityKeys.SECRET_FILE.get(s), LOG::warn) : inline;
            tls = TlsSettings.of(s);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigException(ex.getMessage(), ex);
        }
        secret = text == null || text.isEmpty() ? null : text.getBytes(StandardCharsets.UTF_8);
        usersFile = SecurityKeys.USERS_FILE.isGiven(s) ? SecurityKeys.USERS_FILE.get(s) : null;
        if (usersFile != null)
        {
            try
            {
                UsersFile.read(usersFile); // a missing or malformed file is a configuration error at start
            }
            catch (final IllegalArgumentException ex)
            {
                throw new ConfigException(SecurityKeys.USERS_FILE + ": " + ex.getMessage(), ex);
            }
        }
        if (tls.enabled() && tls.certFile() == null)
        {
            throw new ConfigException(TlsSettings.CA_FILE + " is set but a node needs its own certificate: set " +
                TlsSettings.CERT_FILE + " and " + TlsSettings.KEY_FILE);
        }
        try
        {
            // Loaded once here, so an unreadable or malformed file is a configuration error at start.
            tlsContexts = tls.enabled() ? new ReloadingTls(tls, true) : null;
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigException(ex.getMessage(), ex);
        }
    }

    /** The shared secret clients must present, or {@code null} when authentication is off. A copy. */
    public byte[] secret()
    {
        return secret == null ? null : secret.clone();
    }

    public boolean requiresCredential()
    {
        return secret != null || usersFile != null;
    }

    /** The users file ({@code auth.usersFile}), or null when there are no users. */
    public Path usersFile()
    {
        return usersFile;
    }

    /** The contexts the control port speaks TLS with (reloaded when the files change), or null without TLS. */
    public ReloadingTls tlsContexts()
    {
        return tlsContexts;
    }

    /** TLS on the control port and the tcp data port ({@link TlsSettings#OFF} when no {@code tls.certFile}). */
    public TlsSettings tls()
    {
        return tls;
    }
}

package io.rdmakv.transport.tls;

import io.netty.handler.ssl.SslContext;
import io.rdmakv.transport.log.RateLimitedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The TLS contexts of one side, made again when a certificate, key or CA file changes: every new connection asks for
 * the context and gets one made from the files as they are now, without a restart; established connections keep
 * theirs. The files are compared by content (a few KiB, read per new connection, cheap beside a handshake); a change
 * that does not load (a half-written file, a key that does not match) keeps the contexts in use, with a WARN.
 */
public final class ReloadingTls
{
    private static final Logger LOG = LoggerFactory.getLogger(ReloadingTls.class);
    /** Files that stay broken are met by every new connection: at most a burst of lines, then a count. */
    private static final RateLimitedLog BROKEN = RateLimitedLog.of(LOG);

    private final TlsSettings settings;
    private final boolean server;
    private byte[][] contents;
    private SslContext serverContext;
    private SslContext clientContext;

    /**
     * Load the contexts now.
     *
     * @param settings TLS on ({@link TlsSettings#enabled()}).
     * @param server   whether this side accepts connections too (needs {@code tls.certFile}).
     * @throws IllegalArgumentException when a file cannot be read or loaded (at start: the caller's error).
     */
    public ReloadingTls(final TlsSettings settings, final boolean server)
    {
        this.settings = settings;
        this.server = server;
        this.contents = read();
        this.serverContext = server ? settings.serverContext() : null;
        this.clientContext = settings.clientContext();
    }

    /** The context an accepted connection speaks TLS with, as the files are now. */
    public synchronized SslContext serverContext()
    {
        refresh();
        return serverContext;
    }

    /** The context a connection made from here speaks TLS with, as the files are now. */
    public synchronized SslContext clientContext()
    {
        refresh();
        return clientContext;
    }

    private void refresh()
    {
        final byte[][] now;
        try
        {
            now = read();
        }
        catch (final IllegalArgumentException ex)
        {
            BROKEN.warn("TLS files unreadable, the contexts in use stay: {}", ex.getMessage());
            return;
        }
        if (Arrays.deepEquals(now, contents))
        {
            return;
        }
        try
        {
            final SslContext newServer = server ? settings.serverContext() : null;
            final SslContext newClient = settings.clientContext();
            serverContext = newServer;
            clientContext = newClient;
            contents = now;
            LOG.info("TLS files changed: new connections use them ({})", settings);
        }
        catch (final IllegalArgumentException ex)
        {
            BROKEN.warn("TLS files changed but do not load, the contexts in use stay: {}", ex.getMessage());
        }
    }

    private byte[][] read()
    {
        final List<byte[]> all = new ArrayList<>();
        for (final Path p : new Path[] {settings.certFile(), settings.keyFile(), settings.caFile()})
        {
            try
            {
                all.add(p == null ? new byte[0] : Files.readAllBytes(p));
            }
            catch (final IOException ex)
            {
                throw new IllegalArgumentException("TLS: cannot read " + p + ": " + ex, ex);
            }
        }
        return all.toArray(byte[][]::new);
    }
}

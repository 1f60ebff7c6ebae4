package io.rdmakv.client;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * A {@code host:port} pair as an operator types it ({@code 127.0.0.1:7400}, {@code node-1:7400}, {@code [::1]:7400}).
 * Resolution is left to the moment of connecting, so a seed list may name hosts that are not up yet.
 *
 * @param host name or literal address, without brackets.
 * @param port 1..65535.
 */
public record HostPort(String host, int port)
{
    /**
     * Checks the host is not blank and the port is 1..65535.
     *
     * @param host see {@link #host()}.
     * @param port see {@link #port()}.
     */
    public HostPort
    {
        Objects.requireNonNull(host, "host");
        if (host.isBlank())
        {
            throw new IllegalArgumentException("host must not be empty");
        }
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException("port must be 1..65535, got " + port);
        }
    }

    /**
     * Parse {@code host:port}.
     *
     * @param text e.g. {@code node-1:7400} or {@code [::1]:7400}.
     * @return the pair (the host not resolved).
     * @throws IllegalArgumentException with the offending text when it is not {@code host:port}.
     */
    public static HostPort parse(final String text)
    {
        Objects.requireNonNull(text, "address");
        final String t = text.trim();
        final int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1)
        {
            throw new IllegalArgumentException("expected HOST:PORT, got '" + text + "'");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]"))
        {
            host = host.substring(1, host.length() - 1);
        }
        final int port;
        try
        {
            port = Integer.parseInt(t.substring(colon + 1));
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException("expected HOST:PORT with a numeric port, got '" + text + "'");
        }
        return new HostPort(host, port);
    }

    /**
     * An unresolved socket address (resolved when connecting).
     *
     * @return the address.
     */
    public InetSocketAddress toSocketAddress()
    {
        return InetSocketAddress.createUnresolved(host, port);
    }

    /** {@code host:port}, an IPv6 host in brackets. */
    @Override
    public String toString()
    {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }
}

package io.rdmakv.protocol.wire;

import java.util.Arrays;

/**
 * Where a server's transport listens, inside a {@link Welcome}.
 *
 * <pre>
 *  str8 transport | str8 host | u16 port | blob16 per-transport bytes (verbs: LID/GID, QP number, MTU; tcp: empty)
 * </pre>
 *
 * @param transport the transport's name ("verbs", "tcp").
 * @param host      host name or address literal.
 * @param port      0..65535.
 * @param blob      opaque per-transport bytes, at most 65535.
 */
public record TransportAddress(String transport, String host, int port, byte[] blob)
{
    public TransportAddress
    {
        if (port < 0 || port > 0xFFFF)
        {
            throw new IllegalArgumentException("port " + port + " not in 0..65535");
        }
        blob = blob.clone();
    }

    @Override
    public byte[] blob()
    {
        return blob.clone();
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof TransportAddress a && a.transport.equals(transport) && a.host.equals(host) &&
            a.port == port && Arrays.equals(a.blob, blob);
    }

    @Override
    public int hashCode()
    {
        return ((transport.hashCode() * 31 + host.hashCode()) * 31 + port) * 31 + Arrays.hashCode(blob);
    }

    @Override
    public String toString()
    {
        return "TransportAddress{" + transport + "://" + host + ':' + port + ", blob=" + blob.length + " bytes}";
    }
}

package io.rdmakv.protocol.wire;

import io.rdmakv.protocol.ErrorCode;
import io.rdmakv.protocol.ProtocolException;
import org.agrona.concurrent.UnsafeBuffer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Where a server's transport listens, inside a {@link Welcome}.
 *
 * <pre>
 *  str8 transport | str8 host | u16 port | blob16 per-transport bytes
 *
 *  blob of a node that serves one transport: empty (the WELCOME's remote key is that transport's)
 *  blob of a node that serves several (each registered the pool with its own memory domain):
 *  +-------------------------------+------------------------------------------+
 *  |  Remote key length (u16)      |  Packed remote key of the pool (opaque) ...
 *  +---------------+---------------+------------------------------------------+
 *  | Identity len  |  Host identity, UTF-8 (host-local transports, else empty) ...
 *  +---------------+----------------------------------------------------------+
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

    /**
     * An address of a node serving several transports: the pool's remote key for this transport, and for a
     * host-local one the host identity a client compares with its own before choosing it.
     *
     * @param transport    the transport's name.
     * @param host         host name or address literal.
     * @param port         0..65535.
     * @param remoteKey    the packed remote key of the pool registered with this transport (at most 65535 bytes).
     * @param hostIdentity the node's host identity, or empty.
     * @return the address.
     */
    public static TransportAddress served(final String transport, final String host, final int port,
        final byte[] remoteKey, final String hostIdentity)
    {
        final byte[] identity = hostIdentity.getBytes(StandardCharsets.UTF_8);
        if (remoteKey.length > 0xFFFF || identity.length > 0xFF)
        {
            throw new IllegalArgumentException("remote key of " + remoteKey.length + " bytes or host identity of " +
                identity.length + " bytes too long");
        }
        final UnsafeBuffer b = new UnsafeBuffer(new byte[2 + remoteKey.length + 1 + identity.length]);
        b.putShort(0, (short)remoteKey.length, java.nio.ByteOrder.LITTLE_ENDIAN);
        b.putBytes(2, remoteKey);
        b.putByte(2 + remoteKey.length, (byte)identity.length);
        b.putBytes(3 + remoteKey.length, identity);
        return new TransportAddress(transport, host, port, b.byteArray());
    }

    /**
     * The pool's remote key for this transport.
     *
     * @param fallback the WELCOME's remote key, for an address with an empty blob (a node serving one transport).
     * @return the packed remote key.
     * @throws ProtocolException {@link ErrorCode#MALFORMED} when the blob is not as {@link #served} writes it.
     */
    public byte[] remoteKey(final byte[] fallback)
    {
        if (blob.length == 0)
        {
            return fallback.clone();
        }
        final int length = checkedKeyLength();
        return Arrays.copyOfRange(blob, 2, 2 + length);
    }

    /**
     * The host identity a host-local transport's address carries; empty when none.
     *
     * @return the identity.
     * @throws ProtocolException {@link ErrorCode#MALFORMED} when the blob is not as {@link #served} writes it.
     */
    public String hostIdentity()
    {
        if (blob.length == 0)
        {
            return "";
        }
        final int keyEnd = 2 + checkedKeyLength();
        final int length = blob[keyEnd] & 0xFF;
        if (keyEnd + 1 + length != blob.length)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "transport address blob of " + blob.length +
                " bytes holds no host identity of " + length + " bytes");
        }
        return new String(blob, keyEnd + 1, length, StandardCharsets.UTF_8);
    }

    private int checkedKeyLength()
    {
        final int length = blob.length < 2 ? -1 : (blob[0] & 0xFF) | (blob[1] & 0xFF) << 8;
        if (length < 0 || 2 + length + 1 > blob.length)
        {
            throw new ProtocolException(ErrorCode.MALFORMED, "transport address blob of " + blob.length +
                " bytes is not a remote key and a host identity");
        }
        return length;
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

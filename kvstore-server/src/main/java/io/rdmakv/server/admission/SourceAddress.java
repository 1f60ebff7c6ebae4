package io.rdmakv.server.admission;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * The "source" that admission bounds count per: an IPv4 address, or the /64 prefix of an IPv6 address (one host
 * commonly holds a whole /64, so counting its addresses one by one would bound nothing).
 */
public final class SourceAddress
{
    private static final InetAddress UNKNOWN = InetAddress.getLoopbackAddress();

    private SourceAddress()
    {
    }

    /** The source of a peer's socket address; a non-IP address (never on TCP) counts as one shared source. */
    public static InetAddress of(final SocketAddress remote)
    {
        if (!(remote instanceof InetSocketAddress inet) || inet.getAddress() == null)
        {
            return UNKNOWN;
        }
        final InetAddress address = inet.getAddress();
        if (address instanceof Inet6Address)
        {
            final byte[] bytes = address.getAddress();
            Arrays.fill(bytes, 8, 16, (byte)0);
            try
            {
                return InetAddress.getByAddress(bytes);
            }
            catch (final UnknownHostException ex)
            {
                throw new IllegalStateException("16 bytes are always an IPv6 address", ex);
            }
        }
        return address;
    }
}

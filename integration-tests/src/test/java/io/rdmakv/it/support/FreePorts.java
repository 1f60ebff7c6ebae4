package io.rdmakv.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;

/**
 * Free loopback ports for configurations that must name ports before the servers start (a cluster map lists every
 * node's control port). Asks the kernel for ports and releases them; a tiny window remains in which another process
 * could take one, which is acceptable on a test machine and reported clearly by the server if it happens.
 */
public final class FreePorts
{
    private FreePorts()
    {
    }

    public static int[] take(final int count)
    {
        final ServerSocket[] sockets = new ServerSocket[count];
        final int[] ports = new int[count];
        try
        {
            for (int i = 0; i < count; i++)
            {
                // On the wildcard address and without SO_REUSEADDR (Java sets it by default): the kernel then skips a
                // port a connection in TIME_WAIT still holds, which a server binding the wildcard without it (Ratis'
                // gRPC) could not bind. Thousands of those follow a flood test.
                sockets[i] = new ServerSocket();
                sockets[i].setReuseAddress(false);
                sockets[i].bind(new InetSocketAddress(0), 1);
                ports[i] = sockets[i].getLocalPort();
            }
            return ports;
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot find free ports", ex);
        }
        finally
        {
            for (final ServerSocket s : sockets)
            {
                if (s != null)
                {
                    try
                    {
                        s.close();
                    }
                    catch (final IOException ignore)
                    {
                        // Best effort: the port is free once the JVM lets go of it.
                    }
                }
            }
        }
    }
}

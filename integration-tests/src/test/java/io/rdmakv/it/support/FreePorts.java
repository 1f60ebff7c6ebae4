package io.rdmakv.it.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Free loopback ports for configurations that must name ports before the servers start (a cluster map lists every
 * node's control port). Ports are drawn below the kernel's ephemeral range ({@code net.ipv4.ip_local_port_range}),
 * each checked free by binding it, then released: a port from inside that range (what binding port 0 returns) can be
 * handed by the kernel to any outgoing connection as its source port before the server binds it, and three nodes
 * starting together open dozens of connections to each other while the last of them has not bound its ports yet. A
 * tiny window remains in which another process could bind one on purpose, which is acceptable on a test machine and
 * reported clearly by the server if it happens. Where the range leaves no room below it, the kernel picks (port 0).
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
        final int below = ephemeralLow();
        try
        {
            for (int i = 0; i < count; i++)
            {
                sockets[i] = below - FLOOR >= MIN_ROOM ? bindBelow(below) : bind(0);
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

    /** The lowest port drawn: above the well-known and registered ports local services commonly use (6379, 8080). */
    static final int FLOOR = 20_000;
    /** Fewer free candidates below the ephemeral range than this: let the kernel pick. */
    private static final int MIN_ROOM = 1_000;
    private static final int TRIES = 200;

    /** A socket bound to a free port in [FLOOR, below), or to one the kernel picks if none was found in TRIES. */
    private static ServerSocket bindBelow(final int below) throws IOException
    {
        for (int i = 0; i < TRIES; i++)
        {
            final int candidate = ThreadLocalRandom.current().nextInt(FLOOR, below);
            try
            {
                return bind(candidate);
            }
            catch (final IOException taken)
            {
                // in use (or in TIME_WAIT): draw again
            }
        }
        return bind(0);
    }

    private static ServerSocket bind(final int port) throws IOException
    {
        // On the wildcard address and without SO_REUSEADDR (Java sets it by default): the kernel then skips a port a
        // connection in TIME_WAIT still holds, which a server binding the wildcard without it (Ratis' gRPC) could not
        // bind. Thousands of those follow a flood test.
        final ServerSocket socket = new ServerSocket();
        try
        {
            socket.setReuseAddress(false);
            socket.bind(new InetSocketAddress(port), 1);
            return socket;
        }
        catch (final IOException ex)
        {
            socket.close();
            throw ex;
        }
    }

    /** The first port of the kernel's ephemeral range (32768, Linux's default, when it cannot be read). */
    static int ephemeralLow()
    {
        try
        {
            final String[] range = Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim()
                .split("\\s+");
            return Integer.parseInt(range[0]);
        }
        catch (final IOException | RuntimeException ex)
        {
            return 32_768;
        }
    }
}

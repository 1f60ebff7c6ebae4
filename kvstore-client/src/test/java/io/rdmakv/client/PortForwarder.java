package io.rdmakv.client;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A loopback TCP port forwarder standing in for Docker's {@code -p} (or a NAT): it listens on a port of its own and
 * pipes every connection to a target set once the target is known. Counts the connections it accepted.
 */
final class PortForwarder implements AutoCloseable
{
    private final ServerSocket server;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private volatile InetSocketAddress target;

    PortForwarder() throws IOException
    {
        server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final Thread acceptor = new Thread(this::acceptLoop, "forwarder-" + server.getLocalPort());
        acceptor.setDaemon(true);
        acceptor.start();
    }

    /** The forwarder's own port (what a node behind it advertises). */
    int port()
    {
        return server.getLocalPort();
    }

    /** Where accepted connections go from now on. */
    void forwardTo(final InetSocketAddress target)
    {
        this.target = target;
    }

    /** Connections accepted (and forwarded) so far. */
    int accepted()
    {
        return accepted.get();
    }

    private void acceptLoop()
    {
        while (!server.isClosed())
        {
            try
            {
                final Socket in = server.accept();
                sockets.add(in);
                final InetSocketAddress to = target;
                if (to == null)
                {
                    in.close();
                    continue;
                }
                final Socket out = new Socket(to.getAddress(), to.getPort());
                sockets.add(out);
                accepted.incrementAndGet();
                pipe(in, out);
                pipe(out, in);
            }
            catch (final IOException ex)
            {
                // Closed, or a connection that failed at once: the next accept decides.
            }
        }
    }

    private static void pipe(final Socket from, final Socket to)
    {
        final Thread t = new Thread(() ->
        {
            final byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream())
            {
                int n;
                while ((n = in.read(buffer)) >= 0)
                {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            }
            catch (final IOException ex)
            {
                // One side closed: close both below.
            }
            finally
            {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "forwarder-pipe");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(final Socket socket)
    {
        try
        {
            socket.close();
        }
        catch (final IOException ignore)
        {
            // Already closed.
        }
    }

    @Override
    public void close() throws IOException
    {
        server.close();
        sockets.forEach(PortForwarder::closeQuietly);
    }
}

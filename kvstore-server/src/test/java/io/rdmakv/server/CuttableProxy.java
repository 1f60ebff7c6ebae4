package io.rdmakv.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * A TCP proxy in front of a node's data port whose connections the test can cut with bytes in them: {@link #pause}
 * holds what arrives towards the node (read, not forwarded), {@link #cut} closes every connection and drops what was
 * held, as a link that dropped with a message in flight; later connections are forwarded again.
 */
final class CuttableProxy implements AutoCloseable
{
    private final ServerSocket server;
    private final InetSocketAddress target;
    private final List<Socket> open = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();
    private boolean paused;
    /** Paused by {@link #swallow}: what arrives towards the node is read and dropped instead of left unread. */
    private boolean swallowing;
    private int generation;
    private volatile CountDownLatch held = new CountDownLatch(1);

    CuttableProxy(final InetSocketAddress target) throws IOException
    {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final Thread acceptor = new Thread(this::accept, "cuttable-proxy");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port()
    {
        return server.getLocalPort();
    }

    /** Hold the bytes towards the node from now on; {@link #awaitHeld} returns once some are held. */
    void pause()
    {
        synchronized (lock)
        {
            held = new CountDownLatch(1);
            paused = true;
        }
    }

    /**
     * As {@link #pause}, but keep reading what arrives towards the node (and drop it, as a cut would): however much the
     * node sends, its socket never fills, so nothing it sends is refused for want of buffer space.
     */
    void swallow()
    {
        synchronized (lock)
        {
            held = new CountDownLatch(1);
            swallowing = true;
            paused = true;
        }
    }

    /** Wait until the paused direction holds bytes it did not forward. */
    boolean awaitHeld(final long seconds) throws InterruptedException
    {
        return held.await(seconds, java.util.concurrent.TimeUnit.SECONDS);
    }

    /** Close every connection (what was held is lost); connections made afterwards are forwarded. */
    void cut()
    {
        synchronized (lock)
        {
            generation++;
            paused = false;
            swallowing = false;
            lock.notifyAll();
        }
        for (final Socket s : open)
        {
            closeQuietly(s);
        }
        open.clear();
    }

    @Override
    public void close()
    {
        cut();
        closeQuietly(server);
    }

    private void accept()
    {
        while (!server.isClosed())
        {
            try
            {
                final Socket in = server.accept();
                final Socket out = new Socket(target.getAddress(), target.getPort());
                in.setTcpNoDelay(true);
                out.setTcpNoDelay(true);
                open.add(in);
                open.add(out);
                final int born;
                synchronized (lock)
                {
                    born = generation;
                }
                pump(in, out, true, born);
                pump(out, in, false, born);
            }
            catch (final IOException ex)
            {
                return; // closed
            }
        }
    }

    private void pump(final Socket from, final Socket to, final boolean towardsNode, final int born)
    {
        final Thread t = new Thread(() ->
        {
            final byte[] buffer = new byte[64 * 1024];
            try (InputStream i = from.getInputStream(); OutputStream o = to.getOutputStream())
            {
                int n;
                while ((n = i.read(buffer)) >= 0)
                {
                    synchronized (lock)
                    {
                        if (towardsNode && swallowing && generation == born)
                        {
                            held.countDown();
                            continue; // read, never forwarded
                        }
                        while (towardsNode && paused && generation == born)
                        {
                            held.countDown();
                            lock.wait();
                        }
                        if (generation != born)
                        {
                            return; // cut: what was read is lost
                        }
                    }
                    o.write(buffer, 0, n);
                    o.flush();
                }
            }
            catch (final IOException | InterruptedException ex)
            {
                // the connection was cut or closed
            }
            finally
            {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "cuttable-proxy-pump");
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(final java.io.Closeable c)
    {
        try
        {
            c.close();
        }
        catch (final IOException ignored)
        {
            // closing
        }
    }
}

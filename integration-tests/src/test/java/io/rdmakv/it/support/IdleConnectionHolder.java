package io.rdmakv.it.support;

import io.rdmakv.pool.OpenFileLimit;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A child-process entry point that plays the attacker of issue 10: it opens {@code count} TCP connections to
 * {@code host:port}, spread over {@code sources} loopback source addresses (127.{octet}.x.y), sends nothing, and holds
 * every socket open until its stdin closes. It prints {@code HELD <connected> <failed> <millis>} once all connects
 * returned. A child of its own, because one process holding 10,000 sockets per port would need more descriptors than
 * a test JVM may have.
 *
 * <pre>
 *   java ... IdleConnectionHolder host port count sources octet
 * </pre>
 */
public final class IdleConnectionHolder
{
    private IdleConnectionHolder()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        final String host = args[0];
        final int port = Integer.parseInt(args[1]);
        final int count = Integer.parseInt(args[2]);
        final int sources = Integer.parseInt(args[3]);
        final int octet = Integer.parseInt(args[4]);
        final OpenFileLimit limit = OpenFileLimit.raiseSoftToHard();
        System.out.println("open files " + limit);
        final List<Socket> held = new ArrayList<>(count);
        int failed = 0;
        final long start = System.nanoTime();
        for (int i = 0; i < count; i++)
        {
            final int s = i % sources;
            final String source = "127." + octet + "." + (s / 250) + "." + (s % 250 + 1);
            final Socket socket = new Socket();
            try
            {
                socket.bind(new InetSocketAddress(source, 0));
                socket.connect(new InetSocketAddress(host, port), 30_000);
                held.add(socket);
            }
            catch (final IOException ex)
            {
                failed++;
                if (failed <= 5)
                {
                    System.out.println("connect " + i + " from " + source + " failed: " + ex);
                }
                socket.close();
            }
        }
        System.out.println("HELD " + held.size() + " " + failed + " " + (System.nanoTime() - start) / 1_000_000);
        System.out.flush();
        // Hold until the test closes our stdin (or dies: then stdin reaches EOF too).
        while (System.in.read() >= 0)
        {
            // Nothing to read; wait for EOF.
        }
        for (final Socket socket : held)
        {
            socket.close();
        }
    }
}

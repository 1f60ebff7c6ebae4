package io.rdmakv.cli.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The text-protocol connection's own buffering, against a scripted RESP peer on a loopback port: a pipeline of
 * requests leaves in one write system call, and responses are parsed whatever way the bytes are split across reads
 * (one byte per write, lines and bodies cut at every position, bodies larger than the 64 KiB buffer).
 */
class ProtocolSocketTest
{
    private static final byte[] GET_COMMAND = "*2\r\n$3\r\nGET\r\n".getBytes(StandardCharsets.US_ASCII);

    @Test
    @Timeout(60)
    void shouldSendAPipelineInOneWriteAndParseResponsesSplitAnywhere() throws Exception
    {
        final int depth = 16;
        final byte[] value = "0123456789".getBytes(StandardCharsets.US_ASCII);
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            RespDriver driver = new RespDriver(address(listener), Duration.ofSeconds(30)))
        {
            final CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> serve(listener, depth,
                value));
            final PipelinedConnection c = (PipelinedConnection)driver.connect();
            for (int i = 0; i < depth; i++)
            {
                // Odd keys miss ($-1), even keys hit.
                c.get(("key" + i).getBytes(StandardCharsets.US_ASCII), System.nanoTime());
            }
            c.flush();
            assertEquals(1, c.writes(), "16 requests leave in one write");
            final DriverConnection.Completion completion = new DriverConnection.Completion();
            for (int i = 0; i < depth; i++)
            {
                c.completeOldest(completion);
                assertEquals(OpType.GET, completion.type);
                assertFalse(completion.error, completion.errorText);
                assertEquals(i % 2 == 0, completion.hit, "response " + i);
            }
            assertEquals(0, c.outstanding());
            c.close();
            final byte[] requests = received.get(30, TimeUnit.SECONDS);
            assertEquals(depth, count(requests, GET_COMMAND), new String(requests, StandardCharsets.US_ASCII));
        }
    }

    @Test
    @Timeout(60)
    void shouldWriteAndSkipBodiesLargerThanItsBuffer() throws Exception
    {
        final byte[] big = new byte[200_000];
        Arrays.fill(big, (byte)'v');
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
            RespDriver driver = new RespDriver(address(listener), Duration.ofSeconds(30)))
        {
            final CompletableFuture<Integer> setBytes = CompletableFuture.supplyAsync(() -> serveBig(listener, big));
            final PipelinedConnection c = (PipelinedConnection)driver.connect();
            c.put(OpType.PUT, "big".getBytes(StandardCharsets.US_ASCII), big, System.nanoTime());
            c.get("big".getBytes(StandardCharsets.US_ASCII), System.nanoTime());
            c.get("after".getBytes(StandardCharsets.US_ASCII), System.nanoTime());
            c.flush();
            final DriverConnection.Completion completion = new DriverConnection.Completion();
            c.completeOldest(completion);
            assertFalse(completion.error, completion.errorText);
            c.completeOldest(completion);
            assertTrue(completion.hit, "the 200 KB value is skipped whole");
            c.completeOldest(completion);
            assertFalse(completion.hit, "the response after it is still in step");
            c.close();
            assertEquals(big.length, setBytes.get(30, TimeUnit.SECONDS), "the SET carried the whole value");
        }
    }

    /** Read {@code depth} GETs, then answer them one byte per write: even keys a value, odd keys a miss. */
    private static byte[] serve(final ServerSocket listener, final int depth, final byte[] value)
    {
        try (Socket s = listener.accept())
        {
            s.setTcpNoDelay(true);
            final byte[] requests = readUntil(s.getInputStream(), GET_COMMAND, depth);
            final ByteArrayOutputStream answer = new ByteArrayOutputStream();
            for (int i = 0; i < depth; i++)
            {
                answer.writeBytes(i % 2 == 0 ?
                    ("$" + value.length + "\r\n" + new String(value, StandardCharsets.US_ASCII) + "\r\n")
                        .getBytes(StandardCharsets.US_ASCII) :
                    "$-1\r\n".getBytes(StandardCharsets.US_ASCII));
            }
            final OutputStream out = s.getOutputStream();
            for (final byte b : answer.toByteArray())
            {
                out.write(b);
                out.flush();
            }
            // Hold the connection until the client has read everything (it closes first).
            s.getInputStream().read();
            return requests;
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Read a SET of {@code big} and two GETs; answer +OK, the big value, and a miss. Returns the value's length. */
    private static int serveBig(final ServerSocket listener, final byte[] big)
    {
        try (Socket s = listener.accept())
        {
            final byte[] requests = readUntil(s.getInputStream(), GET_COMMAND, 2);
            final OutputStream out = s.getOutputStream();
            out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
            out.write(("$" + big.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            out.write(big);
            out.write("\r\n$-1\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            s.getInputStream().read();
            return count(requests, new byte[] {'v'});
        }
        catch (final IOException ex)
        {
            throw new IllegalStateException(ex);
        }
    }

    /** Read until {@code pattern} has been seen {@code times} times and the last request's key line is complete. */
    private static byte[] readUntil(final InputStream in, final byte[] pattern, final int times) throws IOException
    {
        final ByteArrayOutputStream seen = new ByteArrayOutputStream();
        final byte[] chunk = new byte[8192];
        while (true)
        {
            final byte[] all = seen.toByteArray();
            if (count(all, pattern) >= times && lastGetComplete(all))
            {
                return all;
            }
            final int n = in.read(chunk);
            if (n < 0)
            {
                throw new IOException("client closed early");
            }
            seen.write(chunk, 0, n);
        }
    }

    /** The last GET's key line is complete: two line ends after its header ("$len\r\nkey\r\n"). */
    private static boolean lastGetComplete(final byte[] all)
    {
        final int at = lastIndexOf(all, GET_COMMAND);
        if (at < 0)
        {
            return false;
        }
        int lines = 0;
        for (int i = at + GET_COMMAND.length; i < all.length; i++)
        {
            if (all[i] == '\n')
            {
                lines++;
            }
        }
        return lines >= 2;
    }

    private static int lastIndexOf(final byte[] all, final byte[] pattern)
    {
        for (int i = all.length - pattern.length; i >= 0; i--)
        {
            if (Arrays.equals(all, i, i + pattern.length, pattern, 0, pattern.length))
            {
                return i;
            }
        }
        return -1;
    }

    private static int count(final byte[] all, final byte[] pattern)
    {
        int n = 0;
        for (int i = 0; i + pattern.length <= all.length; i++)
        {
            if (Arrays.equals(all, i, i + pattern.length, pattern, 0, pattern.length))
            {
                n++;
            }
        }
        return n;
    }

    private static InetSocketAddress address(final ServerSocket listener)
    {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), listener.getLocalPort());
    }
}

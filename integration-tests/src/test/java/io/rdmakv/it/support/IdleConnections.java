package io.rdmakv.it.support;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Idle connections held open against one address by an {@link IdleConnectionHolder} child process, for as long as
 * this object is open. {@link #awaitHeld} waits for the child to report that every connect returned.
 */
public final class IdleConnections implements AutoCloseable
{
    private final Process process;
    private final CompletableFuture<String> held = new CompletableFuture<>();
    private final List<String> output = new ArrayList<>();

    private IdleConnections(final Process process)
    {
        this.process = process;
        final Thread pump = new Thread(this::pump, "idle-connections-stdout");
        pump.setDaemon(true);
        pump.start();
    }

    /**
     * Start a holder of {@code count} connections to {@code address} from {@code sources} source addresses
     * 127.{octet}.x.y.
     */
    public static IdleConnections hold(final InetSocketAddress address, final int count, final int sources,
        final int octet)
    {
        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.add("-Xmx64m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.add("-cp");
        command.add(System.getProperty("rdmakv.it.classpath", System.getProperty("java.class.path")));
        command.add(IdleConnectionHolder.class.getName());
        command.add(address.getHostString());
        command.add(Integer.toString(address.getPort()));
        command.add(Integer.toString(count));
        command.add(Integer.toString(sources));
        command.add(Integer.toString(octet));
        try
        {
            final Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            ProcessJanitor.track(p);
            return new IdleConnections(p);
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot start " + command, ex);
        }
    }

    /** Wait for the HELD line; returns the connections that connected. */
    public int awaitHeld(final Duration timeout) throws Exception
    {
        final String line = held.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        final String[] parts = line.split(" ");
        return Integer.parseInt(parts[1]);
    }

    /** Everything the child printed so far (for assertion messages). */
    public synchronized String output()
    {
        return String.join(System.lineSeparator(), output);
    }

    private void pump()
    {
        try (BufferedReader reader = new BufferedReader(
            new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8)))
        {
            String line;
            while ((line = reader.readLine()) != null)
            {
                synchronized (this)
                {
                    output.add(line);
                }
                if (line.startsWith("HELD "))
                {
                    held.complete(line);
                }
            }
        }
        catch (final IOException ignore)
        {
            // The child went away; the future below says so.
        }
        held.completeExceptionally(new IllegalStateException("the holder exited before HELD: " + output()));
    }

    @Override
    public void close()
    {
        try
        {
            process.getOutputStream().close();
            if (!process.waitFor(20, TimeUnit.SECONDS))
            {
                process.destroyForcibly();
            }
        }
        catch (final IOException ex)
        {
            process.destroyForcibly();
        }
        catch (final InterruptedException ex)
        {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}

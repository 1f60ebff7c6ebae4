package io.rdmakv.server;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.FutureTask;

/**
 * One start-up step run on a thread of its own while start-up goes on (opening RocksDB, opening the transport), so
 * independent steps overlap. {@link #join()} returns its result, or throws its failure as it was thrown there;
 * {@link #millis()} is how long the step took. The thread is a daemon: a step that hangs cannot keep the JVM alive.
 *
 * @param <T> what the step produces.
 */
final class StartupTask<T>
{
    private final String name;
    private final FutureTask<T> task;
    private volatile long millis = -1;

    private StartupTask(final String name, final Callable<T> work)
    {
        this.name = name;
        this.task = new FutureTask<>(() ->
        {
            final long start = System.nanoTime();
            try
            {
                return work.call();
            }
            finally
            {
                millis = (System.nanoTime() - start) / 1_000_000;
            }
        });
    }

    /** Start {@code work} on a new thread named {@code rdmakv-} + {@code name}. */
    static <T> StartupTask<T> start(final String name, final Callable<T> work)
    {
        final StartupTask<T> t = new StartupTask<>(name, work);
        final Thread thread = new Thread(t.task, "rdmakv-" + name);
        thread.setDaemon(true);
        thread.start();
        return t;
    }

    /**
     * Wait for the step.
     *
     * @throws RuntimeException the step's own exception if it threw one, else a {@link ServerStartException}.
     */
    T join()
    {
        try
        {
            return task.get();
        }
        catch (final ExecutionException ex)
        {
            if (ex.getCause() instanceof RuntimeException re)
            {
                throw re;
            }
            throw new ServerStartException(name + " failed: " + ex.getCause(), ex.getCause());
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
            throw new ServerStartException("interrupted while waiting for " + name, ex);
        }
    }

    /** How long the step ran (valid after {@link #join()}). */
    long millis()
    {
        return millis;
    }

    /**
     * {@code failure} ends start-up while {@code task} may still run: wait for it and close what it opened, so
     * nothing outlives the failed start; its own failure is added to {@code failure} as suppressed.
     */
    static RuntimeException closeWhenDone(final RuntimeException failure, final StartupTask<?> task)
    {
        try
        {
            final Object result = task.join();
            if (result instanceof AutoCloseable c)
            {
                c.close();
            }
        }
        catch (final Exception ex)
        {
            failure.addSuppressed(ex);
        }
        return failure;
    }
}

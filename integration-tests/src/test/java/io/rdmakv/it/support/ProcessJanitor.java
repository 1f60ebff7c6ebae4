package io.rdmakv.it.support;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Makes sure no child process outlives the test that started it, even when the test fails or times out:
 * a JUnit extension that SIGKILLs every tracked process after each test (and after each class), and a JVM shutdown
 * hook as the last resort if the test JVM itself is torn down.
 */
public final class ProcessJanitor implements AfterEachCallback, AfterAllCallback
{
    private static final ConcurrentLinkedQueue<Process> TRACKED = new ConcurrentLinkedQueue<>();

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(ProcessJanitor::killAll, "rdmakv-it-janitor"));
    }

    /** Track a started process. */
    public static void track(final Process process)
    {
        TRACKED.add(process);
    }

    /** SIGKILL every tracked process that is still alive and wait for each to be gone; returns how many were alive. */
    public static int killAll()
    {
        final List<Process> alive = new ArrayList<>();
        Process p;
        while ((p = TRACKED.poll()) != null)
        {
            if (p.isAlive())
            {
                p.destroyForcibly();
                alive.add(p);
            }
        }
        for (final Process a : alive)
        {
            try
            {
                a.waitFor(10, TimeUnit.SECONDS);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return alive.size();
    }

    @Override
    public void afterEach(final ExtensionContext context)
    {
        killAll();
    }

    @Override
    public void afterAll(final ExtensionContext context)
    {
        killAll();
    }
}

package io.rdmakv.it.support;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;

/**
 * Makes sure no child process outlives its owner, even when a test fails or times out: a JUnit extension that
 * SIGKILLs every process started during a test method after that method, every process started in
 * {@code @BeforeAll} after the class, and a JVM shutdown hook as the last resort if the test JVM itself goes down.
 * Tests run sequentially in this module (JUnit's default), which the method/class scoping relies on.
 */
public final class ProcessJanitor implements BeforeEachCallback, AfterEachCallback, AfterAllCallback
{
    private static final ConcurrentLinkedQueue<Process> CLASS_SCOPED = new ConcurrentLinkedQueue<>();
    private static final ConcurrentLinkedQueue<Process> METHOD_SCOPED = new ConcurrentLinkedQueue<>();
    private static volatile boolean inTestMethod;

    static
    {
        Runtime.getRuntime().addShutdownHook(new Thread(() ->
        {
            killAll(METHOD_SCOPED);
            killAll(CLASS_SCOPED);
        }, "rdmakv-it-janitor"));
    }

    /** Track a started process: killed after the current test method, or after the class when started outside one. */
    public static void track(final Process process)
    {
        (inTestMethod ? METHOD_SCOPED : CLASS_SCOPED).add(process);
    }

    @Override
    public void beforeEach(final ExtensionContext context)
    {
        inTestMethod = true;
    }

    @Override
    public void afterEach(final ExtensionContext context)
    {
        inTestMethod = false;
        killAll(METHOD_SCOPED);
    }

    @Override
    public void afterAll(final ExtensionContext context)
    {
        killAll(METHOD_SCOPED);
        killAll(CLASS_SCOPED);
    }

    /** SIGKILL every process of {@code queue} that is still alive and wait until each is gone; returns how many. */
    static int killAll(final ConcurrentLinkedQueue<Process> queue)
    {
        final List<Process> alive = new ArrayList<>();
        Process p;
        while ((p = queue.poll()) != null)
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
}

package io.rdmakv.server;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * What a node opened, in order, closed in reverse: every step runs even if an earlier one fails (logged, not thrown),
 * so a failed start or a stop never leaks what came before. Used by {@link KvServer} and its side transports.
 */
final class OpenedResources
{
    private static final Logger LOG = LoggerFactory.getLogger(OpenedResources.class);

    private final Deque<AutoCloseable> opened = new ArrayDeque<>();

    /** Remember {@code resource}; it is closed before everything pushed earlier. */
    void push(final AutoCloseable resource)
    {
        opened.push(resource);
    }

    /** Close everything pushed so far, last first, and forget it. */
    void closeAll()
    {
        while (!opened.isEmpty())
        {
            final AutoCloseable c = opened.pop();
            try
            {
                c.close();
            }
            catch (final Exception ex)
            {
                LOG.warn("closing {} failed: {}", c.getClass().getSimpleName(), ex.toString());
            }
        }
    }
}

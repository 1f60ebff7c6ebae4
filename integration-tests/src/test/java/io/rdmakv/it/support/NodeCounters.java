package io.rdmakv.it.support;

import java.util.Map;

/**
 * Reads a node's STATS counters (its {@code name=value} text as the client returns it) by name, failing with the
 * whole map in the message when the server does not report the counter, so a renamed counter is obvious.
 */
public final class NodeCounters
{
    private NodeCounters()
    {
    }

    public static long get(final Map<String, String> counters, final String name)
    {
        final String value = counters.get(name);
        if (value == null)
        {
            throw new AssertionError("the node reports no counter '" + name + "': " + counters);
        }
        try
        {
            return Long.parseLong(value.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new AssertionError("counter '" + name + "' is not a number: " + value + " in " + counters);
        }
    }
}

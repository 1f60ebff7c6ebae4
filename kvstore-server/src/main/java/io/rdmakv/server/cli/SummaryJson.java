package io.rdmakv.server.cli;

import io.rdmakv.server.cluster.ClusterJson;

import java.util.LinkedHashMap;
import java.util.Map;

/** A command's one-line summary as JSON ({@code backup --json}, {@code restore --json}), written by Jackson. */
final class SummaryJson
{
    private SummaryJson()
    {
    }

    /** {@code namesAndValues}: name, value, name, value, ... (numbers stay numbers), in that order. */
    static String write(final Object... namesAndValues)
    {
        final Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i + 1 < namesAndValues.length; i += 2)
        {
            fields.put((String)namesAndValues[i], namesAndValues[i + 1]);
        }
        return ClusterJson.write(fields);
    }
}

package io.rdmakv.server.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.util.LinkedHashMap;
import java.util.Map;

/** A command's one-line summary as JSON ({@code backup --json}, {@code restore --json}), written by Jackson. */
final class SummaryJson
{
    private static final ObjectMapper JSON = new ObjectMapper();

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
        try
        {
            return JSON.writeValueAsString(fields);
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot write the summary as JSON", ex);
        }
    }
}

package io.rdmakv.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/**
 * The launcher's JSON, written and read by Jackson: {@code --json} documents (stats, doctor, every cluster command,
 * bench), {@code --list-settings=json}, and the nodes' ADMIN answers it reads.
 */
public final class Json
{
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final ObjectMapper PRETTY = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private Json()
    {
    }

    /** The mapper, for building trees ({@code Json.mapper().createObjectNode()}). */
    public static ObjectMapper mapper()
    {
        return MAPPER;
    }

    /** {@code value} as one indented document. */
    public static String pretty(final Object value)
    {
        return write(PRETTY, value);
    }

    /** An ordered object of {@code namesAndValues}: name, value, name, value, ... (numbers stay numbers). */
    public static java.util.Map<String, Object> fields(final Object... namesAndValues)
    {
        final java.util.Map<String, Object> fields = new java.util.LinkedHashMap<>();
        for (int i = 0; i + 1 < namesAndValues.length; i += 2)
        {
            fields.put((String)namesAndValues[i], namesAndValues[i + 1]);
        }
        return fields;
    }

    /** {@code value} on one line (for output read line by line). */
    public static String line(final Object value)
    {
        return write(MAPPER, value);
    }

    private static String write(final ObjectMapper mapper, final Object value)
    {
        try
        {
            return mapper.writeValueAsString(value);
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot write " + value.getClass().getSimpleName() + " as JSON", ex);
        }
    }

    /**
     * Parse {@code text}.
     *
     * @throws IllegalArgumentException when it is not JSON (an answer from a node of another version, say).
     */
    public static JsonNode read(final String text)
    {
        try
        {
            return MAPPER.readTree(text);
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalArgumentException("not JSON: " + text, ex);
        }
    }
}

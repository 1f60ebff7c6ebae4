package io.rdmakv.cli.doctor;

/**
 * A minimal streaming JSON writer (RFC 8259), enough for {@code doctor --json} without a JSON library: objects,
 * arrays, strings (escaped), numbers, booleans and null. Commas are placed by a small stack of "first member" flags.
 */
final class JsonWriter
{
    private final StringBuilder sb = new StringBuilder(8192);
    private final boolean[] first = new boolean[64];
    private int depth;
    private boolean afterName;

    JsonWriter beginObject()
    {
        open('{');
        push();
        return this;
    }

    JsonWriter endObject()
    {
        depth--;
        sb.append('}');
        return this;
    }

    JsonWriter beginArray()
    {
        open('[');
        push();
        return this;
    }

    JsonWriter endArray()
    {
        depth--;
        sb.append(']');
        return this;
    }

    JsonWriter name(final String name)
    {
        separate();
        string(name);
        sb.append(':');
        afterName = true;
        return this;
    }

    JsonWriter value(final String s)
    {
        if (s == null)
        {
            return raw("null");
        }
        separate();
        string(s);
        return this;
    }

    JsonWriter value(final long n)
    {
        return raw(Long.toString(n));
    }

    JsonWriter value(final boolean b)
    {
        return raw(Boolean.toString(b));
    }

    /** {@code "name": "value"} in one call. */
    JsonWriter field(final String name, final String value)
    {
        return name(name).value(value);
    }

    JsonWriter field(final String name, final long value)
    {
        return name(name).value(value);
    }

    @Override
    public String toString()
    {
        return sb.toString();
    }

    private JsonWriter raw(final String token)
    {
        separate();
        sb.append(token);
        return this;
    }

    /** The opening brace/bracket path of {@link #beginObject}/{@link #beginArray}: no quoting. */
    private void open(final char opening)
    {
        separate();
        sb.append(opening);
    }

    private void push()
    {
        if (depth == first.length)
        {
            throw new IllegalStateException("JSON nested deeper than " + first.length);
        }
        first[depth++] = true;
    }

    private void separate()
    {
        if (afterName)
        {
            afterName = false;
            return;
        }
        if (depth > 0)
        {
            if (!first[depth - 1])
            {
                sb.append(',');
            }
            first[depth - 1] = false;
        }
    }

    private void string(final String s)
    {
        sb.append('"');
        for (int i = 0; i < s.length(); i++)
        {
            final char c = s.charAt(i);
            switch (c)
            {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default ->
                {
                    if (c < 0x20)
                    {
                        sb.append(String.format("\\u%04x", (int)c));
                    }
                    else
                    {
                        sb.append(c);
                    }
                }
            }
        }
        sb.append('"');
    }
}

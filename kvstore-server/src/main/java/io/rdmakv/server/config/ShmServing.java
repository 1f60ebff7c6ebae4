package io.rdmakv.server.config;

import java.util.Locale;

/**
 * Whether a node serves {@code shm} beside its main transport ({@code transport.serveShm}): {@code auto} when it is
 * free (a tcp or shm main transport, on a host where shm works), {@code true} always, {@code false} never.
 */
public enum ShmServing
{
    /** Beside a tcp (or shm) main transport on a host where shm works, never beside verbs; the default. */
    AUTO("auto"),
    /** Always, beside any main transport (a verbs node's pool then becomes a memory file). */
    ON("true"),
    /** Never. */
    OFF("false");

    private final String setting;

    ShmServing(final String setting)
    {
        this.setting = setting;
    }

    /**
     * Parse a setting value.
     *
     * @param value {@code auto}, {@code true} or {@code false}, any case.
     * @return the mode.
     * @throws IllegalArgumentException for anything else.
     */
    public static ShmServing parse(final String value)
    {
        final String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        for (final ShmServing s : values())
        {
            if (s.setting.equals(v))
            {
                return s;
            }
        }
        throw new IllegalArgumentException("must be auto, true or false");
    }

    /** The value as the setting spells it. */
    public String setting()
    {
        return setting;
    }
}

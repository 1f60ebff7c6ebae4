package io.rdmakv.pool;

import java.util.Locale;

/** Human-readable byte counts in binary units ("1.0 GiB", "8.0 MiB", "512 B"), for messages and logs. */
public final class ByteSizes
{
    private static final String[] UNITS = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };

    private ByteSizes()
    {
    }

    /** Format {@code bytes} with one decimal in the largest binary unit not above it; negative means unlimited. */
    public static String humanReadable(final long bytes)
    {
        if (bytes < 0)
        {
            return "unlimited";
        }
        if (bytes < 1024)
        {
            return bytes + " B";
        }
        double value = bytes;
        int unit = -1;
        while (value >= 1024 && unit < UNITS.length - 1)
        {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, UNITS[unit]);
    }

    /** "1.0 GiB (1073741824 bytes)", or "unlimited". */
    public static String withExactBytes(final long bytes)
    {
        return bytes < 0 ? "unlimited" : humanReadable(bytes) + " (" + bytes + " bytes)";
    }
}

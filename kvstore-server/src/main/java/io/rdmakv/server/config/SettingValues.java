package io.rdmakv.server.config;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one setting's text as a whole number, a size, a boolean, a choice or a decimal number, checks its range and
 * fails with a {@link ConfigException} that names the setting, the text and what is allowed: the readers behind each
 * {@link Setting}. Holds the one convention for sizes ({@link #parseSize}). Stateless; safe from any thread.
 */
final class SettingValues
{
    private static final Pattern SIZE = Pattern.compile("(\\d+(?:\\.\\d+)?)\\s*([A-Za-z]*)");

    private SettingValues()
    {
    }

    /**
     * Parse a size in bytes. One convention, case-insensitive, a space allowed before the unit:
     * <pre>
     *   65536            bytes
     *   KiB MiB GiB TiB  binary: 2^10, 2^20, 2^30, 2^40     (1.5GiB = 1610612736)
     *   KB  MB  GB  TB   decimal: 10^3, 10^6, 10^9, 10^12   (64MB = 64000000)
     *   k   m   g   t    binary, as the JVM's -Xmx reads them (64m = 64 MiB)
     *   B                bytes (64B)
     * </pre>
     * A fraction is accepted when it comes to whole bytes ({@code 1.5KiB} = 1536; {@code 0.3KiB} is refused).
     *
     * @throws NumberFormatException naming the value, for anything else or a size beyond {@code Long.MAX_VALUE}.
     */
    static long parseSize(final String value)
    {
        final Matcher m = SIZE.matcher(value.trim());
        if (!m.matches())
        {
            throw new NumberFormatException("not a size: '" + value + "' (e.g. 65536, 64MiB, 1.5GiB, 500MB)");
        }
        final String unit = m.group(2).toLowerCase(Locale.ROOT);
        final BigDecimal multiplier = switch (unit)
        {
            case "", "b" -> BigDecimal.ONE;
            case "k", "kib" -> BigDecimal.valueOf(1L << 10);
            case "m", "mib" -> BigDecimal.valueOf(1L << 20);
            case "g", "gib" -> BigDecimal.valueOf(1L << 30);
            case "t", "tib" -> BigDecimal.valueOf(1L << 40);
            case "kb" -> BigDecimal.TEN.pow(3);
            case "mb" -> BigDecimal.TEN.pow(6);
            case "gb" -> BigDecimal.TEN.pow(9);
            case "tb" -> BigDecimal.TEN.pow(12);
            default -> throw new NumberFormatException("unknown size unit '" + m.group(2) + "' in '" + value +
                "' (KiB, MiB, GiB, TiB are binary; KB, MB, GB, TB decimal)");
        };
        final BigDecimal bytes = new BigDecimal(m.group(1)).multiply(multiplier);
        try
        {
            return bytes.longValueExact();
        }
        catch (final ArithmeticException ex)
        {
            throw new NumberFormatException("size '" + value + "' is " + (bytes.signum() > 0 &&
                bytes.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0 ? "too large" :
                "not a whole number of bytes (" + bytes.stripTrailingZeros().toPlainString() + ")"));
        }
    }

    /** {@code bytes} as a file would write it: the largest binary unit that divides it (1MiB, 64KiB, 1000). */
    static String formatSize(final long bytes)
    {
        final String[] units = {"TiB", "GiB", "MiB", "KiB"};
        for (int i = 0; i < units.length; i++)
        {
            final int shift = 40 - 10 * i;
            if (bytes != 0 && bytes % (1L << shift) == 0)
            {
                return (bytes >> shift) + units[i];
            }
        }
        return Long.toString(bytes);
    }

    /** The value trimmed and upper-cased (enum names). */
    static String upper(final String v)
    {
        return v.trim().toUpperCase(Locale.ROOT);
    }

    /** Setting {@code name}'s {@code text} as a whole number in {@code [min, max]}. */
    static int intValue(final String name, final String text, final int min, final int max)
    {
        final long n;
        try
        {
            n = Long.parseLong(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(name + " must be a whole number: '" + text + "'");
        }
        if (n < min || n > max)
        {
            throw outOfRange(name, min, max, text);
        }
        return (int)n;
    }

    /** "NAME must be between MIN and MAX: TEXT", for a value out of its (possibly derived) range. */
    static ConfigException outOfRange(final String name, final long min, final long max, final String text)
    {
        return new ConfigException(name + " must be between " + min + " and " + max + ": " + text);
    }

    /** Setting {@code name}'s {@code text} as {@code true} or {@code false} (any case). */
    static boolean booleanValue(final String name, final String text)
    {
        final String v = text.trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false"))
        {
            throw new ConfigException(name + " must be true or false: '" + text + "'");
        }
        return v.equals("true");
    }

    /** Setting {@code name}'s {@code text} as a size ({@link #parseSize}) in {@code [min, max]} bytes. */
    static long sizeValue(final String name, final String text, final long min, final long max)
    {
        final long n;
        try
        {
            n = parseSize(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(name + " must be a size like 65536, 64MiB or 1GiB: '" + text + "' (" +
                ex.getMessage() + ")");
        }
        if (n < min || n > max)
        {
            throw new ConfigException(name + " must be between " + min + " and " + max + " bytes: " + text);
        }
        return n;
    }

    /** Setting {@code name}'s {@code text} read by {@code parse}, whose {@link IllegalArgumentException} names it. */
    static <T> T choiceValue(final String name, final String text, final Function<String, T> parse)
    {
        try
        {
            return parse.apply(text);
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigException(name + ": invalid value '" + text + "' (" + ex.getMessage() + ")");
        }
    }

    /** Setting {@code name}'s {@code text} as a decimal number in {@code [min, max]}; {@code like} is an example. */
    static double decimalValue(final String name, final String text, final String like, final double min,
        final double max)
    {
        final double d;
        try
        {
            d = Double.parseDouble(text.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(name + " must be a number like " + like + ": '" + text + "'");
        }
        if (!(d >= min && d <= max))
        {
            throw new ConfigException(name + " must be between " + min + " and " + max + ": " + d);
        }
        return d;
    }
}

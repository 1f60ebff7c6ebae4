package io.rdmakv.server.config;

import java.math.BigDecimal;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads one setting's value, as given by name in a settings map, as a whole number, a size, a boolean or an enum,
 * checks its range and fails with a {@link ConfigException} that names the setting, the value and what is allowed.
 * Holds the one convention for sizes ({@link #parseSize}). Stateless; safe from any thread.
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

    /** The value trimmed and upper-cased (enum names). */
    static String upper(final String v)
    {
        return v.trim().toUpperCase(Locale.ROOT);
    }

    /** Setting {@code name} as a whole number in {@code [min, max]}. */
    static int intSetting(final Map<String, String> s, final String name, final int min, final int max)
    {
        final String v = s.get(name);
        final long n;
        try
        {
            n = Long.parseLong(v.trim());
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(name + " must be a whole number: '" + v + "'");
        }
        if (n < min || n > max)
        {
            throw new ConfigException(name + " must be between " + min + " and " + max + ": " + v);
        }
        return (int)n;
    }

    /** Setting {@code name} as {@code true} or {@code false} (any case). */
    static boolean booleanSetting(final Map<String, String> s, final String name)
    {
        final String v = s.get(name).trim().toLowerCase(Locale.ROOT);
        if (!v.equals("true") && !v.equals("false"))
        {
            throw new ConfigException(name + " must be true or false: '" + s.get(name) + "'");
        }
        return v.equals("true");
    }

    /** Setting {@code name} as a size ({@link #parseSize}) in {@code [min, max]} bytes. */
    static long sizeSetting(final Map<String, String> s, final String name, final long min, final long max)
    {
        final String v = s.get(name);
        final long n;
        try
        {
            n = parseSize(v);
        }
        catch (final NumberFormatException ex)
        {
            throw new ConfigException(name + " must be a size like 65536, 64MiB or 1GiB: '" + v + "' (" +
                ex.getMessage() + ")");
        }
        if (n < min || n > max)
        {
            throw new ConfigException(name + " must be between " + min + " and " + max + " bytes: " + v);
        }
        return n;
    }

    /** Setting {@code name} parsed by {@code parse}, whose {@link IllegalArgumentException} becomes a config error. */
    static <T> T enumSetting(final Map<String, String> s, final String name, final Supplier<T> parse)
    {
        try
        {
            return parse.get();
        }
        catch (final IllegalArgumentException ex)
        {
            throw new ConfigException(name + ": invalid value '" + s.get(name) + "' (" + ex.getMessage() + ")");
        }
    }

    /**
     * {@code name} when it is a setting a node accepts.
     *
     * @throws ConfigException naming the known settings otherwise.
     */
    static String checkName(final String name)
    {
        if (ServerConfig.KNOWN.containsKey(name) || isTransportProperty(name))
        {
            return name;
        }
        throw new ConfigException("unknown setting '" + name + "'; known: " + ServerConfig.KNOWN.keySet() +
            " and tcp.*, verbs.*, shm.*");
    }

    /** Whether {@code name} is passed to the transports as a property: {@code tcp.*}, {@code verbs.*}, {@code shm.*}. */
    static boolean isTransportProperty(final String name)
    {
        return name.startsWith("tcp.") || name.startsWith("verbs.") || name.startsWith("shm.");
    }
}

package io.rdmakv.cli;

import java.time.Duration;
import java.util.Locale;

/** Durations on the command line: "10s", "500ms", "2m", "1h", "1d" or a plain number of seconds; positive. */
final class Durations
{
    private Durations()
    {
    }

    /** @throws IllegalArgumentException naming {@code what} when the text is no positive duration. */
    static Duration parse(final String text, final String what)
    {
        final String t = text.trim().toLowerCase(Locale.ROOT);
        final Duration d;
        try
        {
            if (t.endsWith("ms"))
            {
                d = Duration.ofMillis(Long.parseLong(t.substring(0, t.length() - 2).trim()));
            }
            else
            {
                final char unit = t.isEmpty() ? ' ' : t.charAt(t.length() - 1);
                final long number = Long.parseLong(Character.isDigit(unit) ? t : t.substring(0, t.length() - 1).trim());
                d = switch (unit)
                {
                    case 's' -> Duration.ofSeconds(number);
                    case 'm' -> Duration.ofMinutes(number);
                    case 'h' -> Duration.ofHours(number);
                    case 'd' -> Duration.ofDays(number);
                    default ->
                    {
                        if (!Character.isDigit(unit))
                        {
                            throw new NumberFormatException(text);
                        }
                        yield Duration.ofSeconds(number);
                    }
                };
            }
        }
        catch (final NumberFormatException | ArithmeticException ex)
        {
            throw new IllegalArgumentException(what + " '" + text + "' is no duration (10s, 500ms, 2m, 1h, 1d, or seconds)");
        }
        if (d.isNegative() || d.isZero())
        {
            throw new IllegalArgumentException(what + " must be positive: '" + text + "'");
        }
        return d;
    }
}

package io.rdmakv.cli.doctor;

import java.util.List;
import java.util.Objects;

/**
 * One finding of {@code doctor}: a short name, its severity, a one-line message, optional detail lines (a GID table,
 * counter values) and, unless the finding is OK, the fix as a sentence an operator can act on.
 *
 * @param name     short stable name, e.g. {@code "port state"}.
 * @param severity OK, WARN or FAIL.
 * @param message  what was found, one line.
 * @param details  further lines, possibly empty.
 * @param fix      what to do about it; {@code null} when there is nothing to do.
 */
public record Check(String name, Severity severity, String message, List<String> details, String fix)
{
    public Check
    {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(severity, "severity");
        Objects.requireNonNull(message, "message");
        details = List.copyOf(details);
    }

    public static Check ok(final String name, final String message)
    {
        return new Check(name, Severity.OK, message, List.of(), null);
    }

    public static Check warn(final String name, final String message, final String fix)
    {
        return new Check(name, Severity.WARN, message, List.of(), fix);
    }

    public static Check fail(final String name, final String message, final String fix)
    {
        return new Check(name, Severity.FAIL, message, List.of(), fix);
    }

    /** A copy with these detail lines. */
    public Check withDetails(final List<String> lines)
    {
        return new Check(name, severity, message, lines, fix);
    }
}

package io.rdmakv.it.metrics;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A Prometheus text exposition (format 0.0.4) read as families: name, TYPE, HELP and sample lines, and the checks of
 * the Prometheus naming practices the node's families must pass.
 */
record Exposition(Map<String, Family> families)
{
    /** snake_case: lower case letters, digits and underscores. */
    private static final Pattern SNAKE = Pattern.compile("[a-z][a-z0-9_]*");
    /** Units that are not base units, as a name token. */
    private static final Pattern NON_BASE_UNIT = Pattern.compile(
        "(^|_)(ms|millis|milliseconds|us|micros|microseconds|ns|nanos|nanoseconds|minutes|hours|days|kb|mb|gb|kib|" +
            "mib|gib|kilobytes|megabytes|percent)(_|$)");

    record Family(String name, String type, String help, List<String> samples)
    {
    }

    static Exposition parse(final String text)
    {
        final Map<String, Family> families = new LinkedHashMap<>();
        String current = null;
        for (final String line : text.split("\n"))
        {
            if (line.startsWith("# HELP "))
            {
                final String[] parts = line.substring(7).split(" ", 2);
                current = parts[0];
                final Family f = families.get(current);
                families.put(current, new Family(current, f == null ? "" : f.type(), parts.length < 2 ? "" : parts[1],
                    f == null ? new ArrayList<>() : f.samples()));
            }
            else if (line.startsWith("# TYPE "))
            {
                final String[] parts = line.substring(7).split(" ", 2);
                current = parts[0];
                final Family f = families.get(current);
                families.put(current, new Family(current, parts[1], f == null ? "" : f.help(),
                    f == null ? new ArrayList<>() : f.samples()));
            }
            else if (!line.isBlank() && !line.startsWith("#"))
            {
                final String sample = line.split("[{ ]", 2)[0];
                final String owner = current != null && sample.startsWith(current) ? current : sample;
                families.computeIfAbsent(owner, n -> new Family(n, "untyped", "", new ArrayList<>())).samples()
                    .add(line);
            }
        }
        return new Exposition(families);
    }

    /** Every way a family breaks the naming practices, one line each (empty: none). */
    List<String> violations()
    {
        final List<String> out = new ArrayList<>();
        for (final Family f : families.values())
        {
            if (f.help().isBlank())
            {
                out.add(f.name() + ": no HELP");
            }
            if (!SNAKE.matcher(f.name()).matches())
            {
                out.add(f.name() + ": not snake_case");
            }
            if (NON_BASE_UNIT.matcher(f.name()).find())
            {
                out.add(f.name() + ": not a base unit (seconds, bytes)");
            }
            if (f.type().equals("counter") && !f.name().endsWith("_total"))
            {
                out.add(f.name() + ": a counter without _total");
            }
            if (!f.type().equals("counter") && f.name().endsWith("_total"))
            {
                out.add(f.name() + ": _total on a " + f.type());
            }
            // A Micrometer timer's companion gauge <histogram>_max (the largest value of the last minutes) is the one
            // family whose unit is not last.
            final boolean timerMax = f.name().endsWith("_max") &&
                families.containsKey(f.name().substring(0, f.name().length() - 4));
            final String unitless = f.name().replaceAll("_total$", "").replaceAll("_per_second$", "")
                .replaceAll(timerMax ? "_max$" : "$^", "");
            for (final String unit : List.of("bytes", "seconds"))
            {
                if (unitless.contains("_" + unit + "_"))
                {
                    out.add(f.name() + ": the unit " + unit + " belongs at the end of the name");
                }
            }
        }
        return out;
    }

    /** The value of the one sample of {@code family} whose line contains every one of {@code parts}. */
    double value(final String family, final String... parts)
    {
        final Family f = families.get(family);
        if (f == null)
        {
            throw new AssertionError("no family " + family + " in " + families.keySet());
        }
        for (final String line : f.samples())
        {
            boolean all = true;
            for (final String part : parts)
            {
                all &= line.contains(part);
            }
            if (all)
            {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no sample of " + family + " with " + List.of(parts) + ": " + f.samples());
    }

    /** Sample lines named {@code name} exactly (e.g. a histogram's {@code _bucket} lines). */
    long samplesNamed(final String name)
    {
        return families.values().stream().flatMap(f -> f.samples().stream())
            .filter(line -> line.startsWith(name + "{") || line.startsWith(name + " ")).count();
    }
}

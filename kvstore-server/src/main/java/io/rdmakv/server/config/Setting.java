package io.rdmakv.server.config;

import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.UnaryOperator;

/**
 * One node setting, declared once (as Ratis' {@code RaftServerConfigKeys}): its name, the kind of value, its default as
 * a properties file writes it, the values it allows and what it means; and how its text becomes a checked value. The
 * declarations live in the topic catalogues ({@link NodeKeys}, {@link PoolKeys}, {@link NetworkKeys},
 * {@link LimitKeys}, {@link SecurityKeys}, {@link ClusterKeys}, {@link RespKeys}), listed together by
 * {@link SettingCatalog}; the builder, the file, {@code -S}, the flags, {@code --list-settings} and
 * {@code docs/settings.md} all go through them. Immutable; safe from any thread.
 *
 * @param <T> the value's type ({@code null} is read only for a setting without a default that is not given).
 */
public final class Setting<T>
{
    /** Turns a setting's text into its value, or throws a {@link ConfigException} naming the setting and the text. */
    @FunctionalInterface
    interface Reader<T>
    {
        T read(String name, String text);
    }

    private final String name;
    private final String type;
    private final String defaultValue;
    private final String allowed;
    private final String description;
    private final Reader<T> reader;

    private Setting(final String name, final String type, final String defaultValue, final String allowed,
        final String description, final Reader<T> reader)
    {
        this.name = name;
        this.type = type;
        this.defaultValue = defaultValue;
        this.allowed = allowed;
        this.description = description;
        this.reader = reader;
    }

    /** A whole number in {@code [min, max]}; {@code type} says its unit ("int", "ms", "port", "bytes", ...). */
    static Setting<Integer> whole(final String name, final String type, final Integer defaultValue, final int min,
        final int max, final String description)
    {
        return new Setting<>(name, type, defaultValue == null ? null : defaultValue.toString(), min + " to " + max,
            description, (n, t) -> SettingValues.intValue(n, t, min, max));
    }

    /** A size in bytes ({@link SettingValues#parseSize}) in {@code [min, max]}. */
    static Setting<Long> size(final String name, final String defaultValue, final long min, final long max,
        final String description)
    {
        return new Setting<>(name, "size", defaultValue, SettingValues.formatSize(min) + " to " +
            SettingValues.formatSize(max), description, (n, t) -> SettingValues.sizeValue(n, t, min, max));
    }

    /** {@code true} or {@code false}, any case. */
    static Setting<Boolean> flag(final String name, final boolean defaultValue, final String description)
    {
        return new Setting<>(name, "boolean", Boolean.toString(defaultValue), "true | false", description,
            SettingValues::booleanValue);
    }

    /** One of {@code allowed}, read by {@code parse}, whose {@link IllegalArgumentException} names the setting. */
    static <E> Setting<E> choice(final String name, final String defaultValue, final String allowed,
        final Function<String, E> parse, final String description)
    {
        return new Setting<>(name, "enum", defaultValue, allowed, description,
            (n, t) -> SettingValues.choiceValue(n, t, parse));
    }

    /** Free text, trimmed and then {@code normalise}d (host names, lists parsed by their own classes). */
    static Setting<String> text(final String name, final String type, final String defaultValue,
        final UnaryOperator<String> normalise, final String description)
    {
        return text(name, type, defaultValue, "", normalise, description);
    }

    /** Free text whose {@code allowed} values are checked where it is used, not here (the transport's name). */
    static Setting<String> text(final String name, final String type, final String defaultValue,
        final String allowed, final UnaryOperator<String> normalise, final String description)
    {
        return new Setting<>(name, type, defaultValue, allowed, description, (n, t) -> normalise.apply(t.trim()));
    }

    /** A file or directory. */
    static Setting<Path> path(final String name, final String defaultValue, final String description)
    {
        return new Setting<>(name, "path", defaultValue, "", description, (n, t) -> Path.of(t.trim()));
    }

    /** A decimal number in {@code [min, max]}. */
    static Setting<Double> decimal(final String name, final String defaultValue, final double min, final double max,
        final String description)
    {
        return new Setting<>(name, "decimal", defaultValue, min + " to " + max, description,
            (n, t) -> SettingValues.decimalValue(n, t, defaultValue, min, max));
    }

    /**
     * This setting, refusing a value {@code rule} rejects with "NAME must be WHAT: VALUE".
     *
     * @param rule the extra check, after the type's own.
     * @param what what the value must be, for the message and the allowed values.
     * @return a new declaration.
     */
    Setting<T> requiring(final Predicate<T> rule, final String what)
    {
        return new Setting<>(name, type, defaultValue, allowed.isEmpty() ? what : allowed + ", " + what, description,
            (n, t) ->
            {
                final T value = reader.read(n, t);
                if (!rule.test(value))
                {
                    throw new ConfigException(n + " must be " + what + ": " + value);
                }
                return value;
            });
    }

    /** The name a file, {@code -S} and {@code --list-settings} use. */
    public String name()
    {
        return name;
    }

    /** The kind of value: int, ms, port, bytes, size, boolean, enum, decimal, string, path, list, host. */
    public String type()
    {
        return type;
    }

    /** The default as a file writes it, or {@code null} when there is none or it is derived (the description says). */
    public String defaultValue()
    {
        return defaultValue;
    }

    /** The values allowed ("1 to 16384", "1MiB to 1GiB", "auto | true | false"), or "" for any. */
    public String allowed()
    {
        return allowed;
    }

    /** What the setting means. */
    public String description()
    {
        return description;
    }

    /** The setting's text in {@code settings}, else its default; {@code null} when neither. */
    public String text(final Map<String, String> settings)
    {
        final String given = settings.get(name);
        return given != null ? given : defaultValue;
    }

    /** Whether {@code settings} gives this setting (its default does not count). */
    public boolean isGiven(final Map<String, String> settings)
    {
        final String given = settings.get(name);
        return given != null && !given.isBlank();
    }

    /**
     * The checked value in {@code settings}, its default when they lack it.
     *
     * @return the value, or {@code null} when the setting has no default and is not given.
     * @throws ConfigException naming the setting, the text and what is allowed.
     */
    public T get(final Map<String, String> settings)
    {
        final String t = text(settings);
        return t == null ? null : reader.read(name, t);
    }

    @Override
    public String toString()
    {
        return name;
    }
}

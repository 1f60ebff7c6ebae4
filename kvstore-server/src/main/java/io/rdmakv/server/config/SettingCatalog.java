package io.rdmakv.server.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Every setting a node accepts, in the order {@code --list-settings} and {@code docs/settings.md} show them: the
 * declarations of the topic catalogues ({@link NodeKeys}, {@link PoolKeys}, {@link NetworkKeys}, {@link LimitKeys},
 * {@link SecurityKeys}, {@link ClusterKeys}, {@link RespKeys}), and the prefixes passed through to the transports
 * ({@code tcp.*}, {@code verbs.*}, {@code shm.*}). Immutable; safe from any thread.
 */
public final class SettingCatalog
{
    /** Every declared setting, by topic. */
    public static final List<Setting<?>> ALL = Stream.of(NodeKeys.ALL, PoolKeys.ALL, NetworkKeys.ALL, LimitKeys.ALL,
        SecurityKeys.ALL, ClusterKeys.ALL, RespKeys.ALL).flatMap(List::stream).toList();

    /** Prefixes of the settings passed to the transports as properties. */
    public static final List<String> PASS_THROUGH_PREFIXES = List.of("tcp.", "verbs.", "shm.");

    private static final Map<String, Setting<?>> BY_NAME = byName();

    private SettingCatalog()
    {
    }

    /** Each setting's name and default ({@code null}: none or derived), in {@link #ALL}'s order. */
    public static Map<String, String> defaults()
    {
        final Map<String, String> m = new LinkedHashMap<>();
        ALL.forEach(s -> m.put(s.name(), s.defaultValue()));
        return Collections.unmodifiableMap(m);
    }

    /** The declaration named {@code name}, or {@code null} for a pass-through or unknown name. */
    public static Setting<?> find(final String name)
    {
        return BY_NAME.get(name);
    }

    /**
     * {@code name} when it is a setting a node accepts.
     *
     * @throws ConfigException naming the known settings otherwise.
     */
    static String checkName(final String name)
    {
        if (BY_NAME.containsKey(name) || isTransportProperty(name))
        {
            return name;
        }
        final List<String> passThrough = new ArrayList<>();
        PASS_THROUGH_PREFIXES.forEach(p -> passThrough.add(p + "*"));
        throw new ConfigException("unknown setting '" + name + "'; known: " + BY_NAME.keySet() + " and " +
            String.join(", ", passThrough));
    }

    /** Whether {@code name} goes to the transports as a property ({@code tcp.*}, {@code verbs.*}, {@code shm.*}). */
    static boolean isTransportProperty(final String name)
    {
        return PASS_THROUGH_PREFIXES.stream().anyMatch(name::startsWith);
    }

    private static Map<String, Setting<?>> byName()
    {
        final Map<String, Setting<?>> m = new LinkedHashMap<>();
        for (final Setting<?> s : ALL)
        {
            if (m.put(s.name(), s) != null)
            {
                throw new IllegalStateException("setting " + s.name() + " is declared twice");
            }
        }
        return Collections.unmodifiableMap(m);
    }
}

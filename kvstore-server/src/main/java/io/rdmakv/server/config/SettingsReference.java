package io.rdmakv.server.config;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The settings reference, from the declarations ({@link SettingCatalog}): each setting's name, type, default, allowed
 * values and meaning. {@code rdmakv server --list-settings} prints {@link #text()} ({@code =json}: {@link #json()});
 * {@code docs/settings.md} is {@link #markdown()}, and {@code ServerCommandHelpTest} fails when the file and the code
 * differ (regenerate with {@code rdmakv server --list-settings=markdown > docs/settings.md}).
 */
public final class SettingsReference
{
    /** The formats {@link #render} knows, as {@code --list-settings} takes them. */
    public static final List<String> FORMATS = List.of("text", "json", "markdown");

    /** Meaning of each setting, in {@link SettingCatalog#ALL}'s order. */
    public static final Map<String, String> MEANINGS = meanings();

    /** How sizes are written (the convention of {@link ServerConfig#parseSize}). */
    public static final String SIZES = "Sizes: KiB, MiB, GiB, TiB are binary (1.5GiB = 1610612736 B); KB, MB, GB, TB " +
        "decimal (64MB = 64000000 B); a bare k, m, g, t is binary as in -Xmx; fractions only when whole bytes.";

    /** Settings passed through to the transport as properties. */
    public static final String PASS_THROUGH = "tcp.*, verbs.* and shm.*: passed to the transports as properties.";

    private static final ObjectMapper JSON = new ObjectMapper();

    private SettingsReference()
    {
    }

    /**
     * The reference in one of {@link #FORMATS}.
     *
     * @return the text, or {@code null} for a format not among them.
     */
    public static String render(final String format)
    {
        return switch (format)
        {
            case "text" -> text();
            case "json" -> json();
            case "markdown" -> markdown();
            default -> null;
        };
    }

    /** One line per setting: name, type, default, meaning and allowed values; then the size convention. */
    public static String text()
    {
        final String format = "%-34s %-7s %-14s %s%n";
        final StringBuilder sb = new StringBuilder(String.format(format, "SETTING", "TYPE", "DEFAULT", "MEANING"));
        SettingCatalog.ALL.forEach(s -> sb.append(String.format(format, s.name(), s.type(), orDash(s.defaultValue()),
            s.description() + (s.allowed().isEmpty() ? "" : " [" + s.allowed() + "]"))));
        return sb.append(PASS_THROUGH).append(System.lineSeparator()).append(SIZES).append(System.lineSeparator())
            .toString();
    }

    /**
     * Every setting as JSON: {@code {"settings":[{"name":"...","type":"size","default":"64MiB",
     * "allowed":"1MiB to 1TiB, ...","meaning":"..."}],"passThrough":["tcp.*","verbs.*","shm.*"],"sizes":"..."}}
     * ({@code default} null where there is none, {@code allowed} "" where anything goes).
     */
    public static String json()
    {
        final ObjectNode root = JSON.createObjectNode();
        final ArrayNode settings = root.putArray("settings");
        SettingCatalog.ALL.forEach(s -> settings.addObject().put("name", s.name()).put("type", s.type())
            .put("default", s.defaultValue()).put("allowed", s.allowed()).put("meaning", s.description()));
        final ArrayNode passThrough = root.putArray("passThrough");
        SettingCatalog.PASS_THROUGH_PREFIXES.forEach(p -> passThrough.add(p + "*"));
        root.put("sizes", SIZES);
        try
        {
            return JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + System.lineSeparator();
        }
        catch (final JsonProcessingException ex)
        {
            throw new IllegalStateException("cannot write the settings as JSON", ex);
        }
    }

    /** The page {@code docs/settings.md}. */
    public static String markdown()
    {
        final StringBuilder sb = new StringBuilder("# Server settings\n\n")
            .append("Generated from the code by `rdmakv server --list-settings=markdown`: each setting is declared ")
            .append("once, with its type, default, allowed values and meaning, as a `Setting` of a topic catalogue ")
            .append("(`SettingCatalog` lists them), and `ServerCommandHelpTest` fails when this page and the code ")
            .append("differ. Set them in the `--config` properties file or with `-S name=value`; flags override the ")
            .append("file.\n\n")
            .append("| setting | type | default | allowed | meaning |\n|---|---|---|---|---|\n");
        SettingCatalog.ALL.forEach(s -> sb.append("| `").append(s.name()).append("` | ").append(s.type()).append(" | ")
            .append(s.defaultValue() == null ? "-" : "`" + s.defaultValue() + "`").append(" | ")
            .append(cell(s.allowed())).append(" | ").append(cell(s.description())).append(" |\n"));
        return sb.append('\n').append(PASS_THROUGH).append("\n\n").append(SIZES).append('\n').toString();
    }

    private static String cell(final String text)
    {
        return text.replace("|", "\\|");
    }

    private static String orDash(final String value)
    {
        return value == null ? "-" : value;
    }

    private static Map<String, String> meanings()
    {
        final Map<String, String> m = new LinkedHashMap<>();
        SettingCatalog.ALL.forEach(s -> m.put(s.name(), s.description()));
        return java.util.Collections.unmodifiableMap(m);
    }
}

package io.rdmakv.cli;

import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * Chooses the launcher's logging before the first logger exists: Logback reads its configuration once, from system
 * properties ({@code logback.configurationFile}, and the {@code rdmakv.log.*} variables of {@code logback.xml}).
 * A property already given on the JVM's command line wins over the flag, which wins over the environment.
 *
 * <pre>
 *   --log-config FILE   | RDMAKV_LOG_CONFIG=FILE  -> logback.configurationFile (a whole Logback file of one's own)
 *   --log-format json   | RDMAKV_LOG_FORMAT=json  -> rdmakv.log.format, and logback-json.xml unless a file is given
 *   get/put/del/stats/bench                       -> rdmakv.log.level=WARN (only what was asked is printed)
 *   get/put/del/stats, no file, no format         -> rdmakv.log.quiet=true (QuietLogConfigurator, no XML)
 * </pre>
 */
public final class LogSetup
{
    public static final String CONFIG_FLAG = "--log-config";
    public static final String FORMAT_FLAG = "--log-format";
    public static final String CONFIG_ENV = "RDMAKV_LOG_CONFIG";
    public static final String FORMAT_ENV = "RDMAKV_LOG_FORMAT";
    public static final String CONFIG_PROPERTY = "logback.configurationFile";
    public static final String FORMAT_PROPERTY = "rdmakv.log.format";
    public static final String LEVEL_PROPERTY = "rdmakv.log.level";
    /** Set for get/put/del/stats with no file and no format of one's own: see {@link QuietLogConfigurator}. */
    public static final String QUIET_PROPERTY = "rdmakv.log.quiet";
    /** The built-in JSON configuration, a class path resource beside {@code logback.xml}. */
    public static final String JSON_CONFIG_RESOURCE = "logback-json.xml";

    private static final Set<String> QUIET_COMMANDS = Set.of("get", "put", "del", "delete", "stats", "bench");

    private LogSetup()
    {
    }

    /** Apply to this JVM's system properties, reading its environment. */
    public static void apply(final String[] args)
    {
        apply(args, System.getenv(), System::getProperty, System::setProperty);
    }

    /**
     * The decision over any environment and property store (tests pass maps).
     *
     * @throws IllegalArgumentException for a log format other than text or json.
     */
    public static void apply(final String[] args, final Map<String, String> env,
        final Function<String, String> properties, final BiConsumer<String, String> setProperty)
    {
        setUnlessGiven(CONFIG_PROPERTY, firstOf(flag(args, CONFIG_FLAG), env.get(CONFIG_ENV)), properties, setProperty);
        final String format = firstOf(flag(args, FORMAT_FLAG), env.get(FORMAT_ENV));
        if (format != null)
        {
            final String f = format.trim().toLowerCase(Locale.ROOT);
            if (!f.equals("text") && !f.equals("json"))
            {
                throw new IllegalArgumentException("log format must be text or json: '" + format + "'");
            }
            setUnlessGiven(FORMAT_PROPERTY, f, properties, setProperty);
        }
        if ("json".equals(properties.apply(FORMAT_PROPERTY)))
        {
            // A configuration of one's own (flag, environment or -D) wins; else the built-in JSON one.
            setUnlessGiven(CONFIG_PROPERTY, JSON_CONFIG_RESOURCE, properties, setProperty);
        }
        if (args.length > 0 && QUIET_COMMANDS.contains(args[0]))
        {
            setUnlessGiven(LEVEL_PROPERTY, "WARN", properties, setProperty);
            if (properties.apply(CONFIG_PROPERTY) == null && properties.apply(FORMAT_PROPERTY) == null &&
                !args[0].equals("bench"))
            {
                // Warnings as text and nothing else to choose: QuietLogConfigurator, without the XML machinery.
                setUnlessGiven(QUIET_PROPERTY, "true", properties, setProperty);
            }
        }
    }

    /** The value of {@code --name VALUE} or {@code --name=VALUE} anywhere on the line, else null. */
    static String flag(final String[] args, final String name)
    {
        for (int i = 0; i < args.length; i++)
        {
            if (args[i].equals(name) && i + 1 < args.length)
            {
                return args[i + 1];
            }
            if (args[i].startsWith(name + "="))
            {
                return args[i].substring(name.length() + 1);
            }
        }
        return null;
    }

    private static String firstOf(final String a, final String b)
    {
        return a != null && !a.isBlank() ? a : b != null && !b.isBlank() ? b : null;
    }

    private static void setUnlessGiven(final String property, final String value,
        final Function<String, String> properties, final BiConsumer<String, String> setProperty)
    {
        if (value != null && properties.apply(property) == null)
        {
            setProperty.accept(property, value);
        }
    }
}

package io.rdmakv.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;

/**
 * Logback's configuration for the short client commands (get/put/del/stats): warnings only, the pattern of
 * {@code logback.xml}, set up in code. Reading {@code logback.xml} loads Logback's XML machinery (about 700 classes,
 * a third of such a command's start-up); a command that prints nothing but warnings does not need it. Every other
 * command, a {@code --log-config} file and {@code --log-format json} go on to {@code logback.xml} as usual
 * ({@link LogSetup} decides through {@value LogSetup#QUIET_PROPERTY}). Found by Logback through
 * {@code META-INF/services}.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_HIGH_PRIORITY)
public final class QuietLogConfigurator extends ContextAwareBase implements Configurator
{
    /** The pattern of logback.xml's text appender. */
    static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX, UTC} %-5level [%thread] %logger{0} - %msg%n";

    @Override
    public ExecutionStatus configure(final LoggerContext context)
    {
        if (!Boolean.getBoolean(LogSetup.QUIET_PROPERTY))
        {
            return ExecutionStatus.INVOKE_NEXT_IF_ANY;
        }
        final PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(context);
        encoder.setPattern(PATTERN);
        encoder.start();
        final ConsoleAppender<ILoggingEvent> appender = new ConsoleAppender<>();
        appender.setContext(context);
        appender.setName("text");
        appender.setTarget("System.err");
        appender.setEncoder(encoder);
        appender.start();
        final ch.qos.logback.classic.Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.setLevel(Level.toLevel(System.getProperty(LogSetup.LEVEL_PROPERTY), Level.WARN));
        root.addAppender(appender);
        return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
    }
}

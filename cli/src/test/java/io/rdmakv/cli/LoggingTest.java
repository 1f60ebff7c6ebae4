package io.rdmakv.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launcher's Logback set-up in child JVMs (Logback configures itself once per JVM): dated lines with levels,
 * levels per logger, JSON on request, a configuration file of one's own by flag or environment.
 */
@Timeout(120)
class LoggingTest
{
    @TempDir
    Path tmp;

    @Test
    void shouldLogDatedLinesAtInfoWithNettyAtWarnByDefault() throws Exception
    {
        final String err = run(Map.of("RDMAKV_PROBE_STORM", "1"), "server");
        assertTrue(err.matches("(?s)\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z INFO  \\[main] probe - probe info 42\\R.*"),
            err);
        assertTrue(err.contains(" WARN  [main] probe - probe warn"), err);
        assertFalse(err.contains("probe debug"), err);
        assertFalse(err.contains("netty info"), "io.netty is at WARN: " + err);
        assertEquals(5, err.lines().filter(l -> l.contains("probe storm: heartbeat to")).count(),
            "50 Ratis warnings of one kind: the first 5 are written (RepeatedLinesFilter): " + err);
    }

    @Test
    void shouldKeepClientCommandsToWarnings() throws Exception
    {
        final String err = run(Map.of(), "get", "k");
        assertFalse(err.contains("probe info"), err);
        assertTrue(err.matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z WARN  \\[main] probe - probe warn"),
            "the quiet configuration keeps logback.xml's pattern: " + err);
    }

    @Test
    void shouldWriteOneJsonObjectPerLineWhenAsked() throws Exception
    {
        for (final String err : List.of(run(Map.of(), "--log-format", "json", "server"),
            run(Map.of(LogSetup.FORMAT_ENV, "json"), "server")))
        {
            final List<JsonNode> lines = new ArrayList<>();
            for (final String line : err.split("\\R"))
            {
                lines.add(new ObjectMapper().readTree(line));
            }
            assertEquals(2, lines.size(), err);
            assertEquals("INFO", lines.get(0).get("level").asText());
            assertEquals("io.rdmakv.probe", lines.get(0).get("loggerName").asText());
            assertEquals("probe info 42", lines.get(0).get("formattedMessage").asText());
            assertTrue(lines.get(0).get("timestamp").asLong() > 0);
            assertEquals("WARN", lines.get(1).get("level").asText());
        }
    }

    @Test
    void shouldReadAConfigurationOfOnesOwnByFlagOrEnvironment() throws Exception
    {
        final Path config = tmp.resolve("mine.xml");
        Files.writeString(config, """
            <configuration>
              <appender name="e" class="ch.qos.logback.core.ConsoleAppender">
                <target>System.err</target>
                <encoder><pattern>MINE %level %logger %msg%n</pattern></encoder>
              </appender>
              <logger name="io.rdmakv.probe" level="DEBUG"/>
              <root level="INFO"><appender-ref ref="e"/></root>
            </configuration>
            """);
        for (final String err : List.of(run(Map.of(), "--log-config", config.toString(), "server"),
            run(Map.of(LogSetup.CONFIG_ENV, config.toString()), "server")))
        {
            assertTrue(err.contains("MINE DEBUG io.rdmakv.probe probe debug"), err);
            assertTrue(err.contains("MINE INFO io.netty.probe netty info"), err);
        }
    }

    @Test
    void shouldRefuseAnUnknownFormatAndLetTheJvmPropertyWin()
    {
        assertThrows(IllegalArgumentException.class,
            () -> LogSetup.apply(new String[] {"--log-format=xml"}, Map.of(), k -> null, (k, v) -> { }));
        final Map<String, String> properties = new HashMap<>(Map.of(LogSetup.FORMAT_PROPERTY, "text"));
        LogSetup.apply(new String[] {"get", "--log-format=json"}, Map.of(LogSetup.CONFIG_ENV, "/etc/x.xml"),
            properties::get, properties::put);
        assertEquals(Map.of(LogSetup.FORMAT_PROPERTY, "text", LogSetup.CONFIG_PROPERTY, "/etc/x.xml",
            LogSetup.LEVEL_PROPERTY, "WARN"), properties, "a file of one's own: no quiet configuration");
        final Map<String, String> quiet = new HashMap<>();
        LogSetup.apply(new String[] {"get", "k"}, Map.of(), quiet::get, quiet::put);
        assertEquals(Map.of(LogSetup.LEVEL_PROPERTY, "WARN", LogSetup.QUIET_PROPERTY, "true"), quiet);
    }

    /** Run {@link LogProbeMain} in a child JVM with this class path; its standard error. */
    private String run(final Map<String, String> env, final String... args) throws IOException, InterruptedException
    {
        final List<String> command = new ArrayList<>(List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xshare:auto",
            "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), LogProbeMain.class.getName()));
        command.addAll(List.of(args));
        final Path err = Files.createTempFile(tmp, "err", ".log");
        final ProcessBuilder pb = new ProcessBuilder(command).redirectError(err.toFile())
            .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().remove(LogSetup.CONFIG_ENV);
        pb.environment().remove(LogSetup.FORMAT_ENV);
        pb.environment().putAll(env);
        final Process p = pb.start();
        try
        {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "child JVM did not finish");
        }
        finally
        {
            p.destroyForcibly();
        }
        assertEquals(0, p.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
        return Files.readString(err, StandardCharsets.UTF_8).strip();
    }
}

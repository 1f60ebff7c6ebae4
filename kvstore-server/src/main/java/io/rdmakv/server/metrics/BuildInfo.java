package io.rdmakv.server.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * {@code rdmakv_build_info{version,revision,java} 1}: what a node runs, as a constant gauge to join on
 * ({@code * on(instance) group_left(version) rdmakv_build_info}). Version and git revision come from
 * {@code rdmakv-build.properties}, filled in by the build (the revision by git-commit-id-maven-plugin; "unknown" in a
 * build outside a git checkout); java is {@code java.runtime.version}.
 */
public record BuildInfo(String version, String revision, String java)
{
    static final String RESOURCE = "rdmakv-build.properties";

    /** This node's build. */
    public static BuildInfo current()
    {
        final Properties p = new Properties();
        try (InputStream in = BuildInfo.class.getResourceAsStream(RESOURCE))
        {
            if (in != null)
            {
                p.load(in);
            }
        }
        catch (final IOException ex)
        {
            throw new UncheckedIOException("cannot read " + RESOURCE + " from the server's jar", ex);
        }
        return new BuildInfo(filled(p.getProperty("version")), filled(p.getProperty("revision")),
            System.getProperty("java.runtime.version", System.getProperty("java.version")));
    }

    /** A property the build left unfilled ({@code ${...}}, absent, empty) is "unknown". */
    private static String filled(final String value)
    {
        return value == null || value.isEmpty() || value.startsWith("${") ? "unknown" : value;
    }

    void bindTo(final MeterRegistry registry)
    {
        Gauge.builder("rdmakv.build.info", () -> 1)
            .description("The node's build: version, git revision and Java runtime (always 1)")
            .tags("version", version, "revision", revision, "java", java)
            .strongReference(true)
            .register(registry);
    }
}

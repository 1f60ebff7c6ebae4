package io.rdmakv.cli;

import io.rdmakv.protocol.SharedSecret;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * The shared secret of every command that authenticates, one way for all: {@code --secret-file FILE} or the
 * {@value SharedSecret#ENV} environment variable, never an argument {@code ps} would show ({@link SharedSecret}).
 * A picocli mixin.
 */
public final class SecretOptions
{
    private static final Logger LOG = LoggerFactory.getLogger(SecretOptions.class);

    @Option(names = "--secret-file", paramLabel = "FILE",
        description = "The cluster's shared secret: the first line of FILE (default: the " + SharedSecret.ENV +
            " environment variable).")
    Path secretFile;

    /** The environment (tests give their own). */
    UnaryOperator<String> environment = System::getenv;

    /** The file given with {@code --secret-file}, or null. */
    public Path secretFile()
    {
        return secretFile;
    }

    /**
     * The secret from {@code --secret-file}, else the environment; null when neither gives one.
     *
     * @throws IllegalArgumentException (a usage error) when the file cannot be read or is empty.
     */
    public String secret()
    {
        return SharedSecret.resolve(secretFile, environment, LOG::warn);
    }

    /** As {@link #secret()}, the empty string for none. */
    public String secretOrEmpty()
    {
        final String s = secret();
        return s == null ? "" : s;
    }
}

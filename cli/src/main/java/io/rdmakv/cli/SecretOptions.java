package io.rdmakv.cli;

import io.rdmakv.protocol.SharedSecret;
import io.rdmakv.protocol.auth.Login;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Option;

import java.nio.file.Path;
import java.util.function.UnaryOperator;

/**
 * The credentials of every command that authenticates, one way for all: the shared secret from
 * {@code --secret-file FILE} or the {@value SharedSecret#ENV} environment variable, and a user from {@code --user NAME}
 * with its password from {@code --password-file FILE} or {@value Login#PASSWORD_ENV}; never an argument {@code ps}
 * would show ({@link SharedSecret}, {@link Login}).
 * A picocli mixin.
 */
public final class SecretOptions
{
    private static final Logger LOG = LoggerFactory.getLogger(SecretOptions.class);

    @Option(names = "--secret-file", paramLabel = "FILE",
        description = "The cluster's shared secret: the first line of FILE (default: the " + SharedSecret.ENV +
            " environment variable).")
    Path secretFile;

    @Option(names = "--user", paramLabel = "NAME",
        description = "Log in as this user of the nodes' users file (SCRAM-SHA-256: the password never travels); " +
            "its password from --password-file or the " + Login.PASSWORD_ENV + " environment variable.")
    String user;

    @Option(names = "--password-file", paramLabel = "FILE",
        description = "The --user's password: the first line of FILE (default: the " + Login.PASSWORD_ENV +
            " environment variable).")
    Path passwordFile;

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

    /**
     * The login {@code --user} and {@code --password-file} (or the environment) give; null without {@code --user}.
     *
     * @throws IllegalArgumentException (a usage error) for a password file without a user, a user without a password,
     *                                  or a file that cannot be read.
     */
    public Login login()
    {
        return Login.resolve(user, passwordFile, environment, LOG::warn);
    }

    /** The file given with {@code --password-file}, or null. */
    public Path passwordFile()
    {
        return passwordFile;
    }

    /** As {@link #secret()}, the empty string for none. */
    public String secretOrEmpty()
    {
        final String s = secret();
        return s == null ? "" : s;
    }
}

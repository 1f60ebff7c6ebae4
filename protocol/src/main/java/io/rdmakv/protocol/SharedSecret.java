package io.rdmakv.protocol;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * Where the cluster's shared secret (the node's {@code auth.secret}, the credential in HELLO) comes from, the same way
 * for the node, the client builder and every command: a file ({@code --secret-file FILE}, {@code auth.secretFile},
 * {@code KvClientBuilder.secretFile}) or the {@value #ENV} environment variable, never a command-line argument that
 * {@code ps} would show. The file's first line, stripped, is the secret; a file that group or others may read is
 * used, with a warning.
 */
public final class SharedSecret
{
    /** The one environment variable that holds the secret, for the node and for every command. */
    public static final String ENV = "RDMAKV_SECRET";

    private SharedSecret()
    {
    }

    /**
     * The secret from {@code file} when given, else from the environment's {@value #ENV}; null when neither holds one.
     *
     * @param file        the secret file, or null.
     * @param environment reads an environment variable ({@code System::getenv}; tests give their own).
     * @param warn        told when the file is readable by group or others.
     * @throws IllegalArgumentException when the file cannot be read or its first line is empty.
     */
    public static String resolve(final Path file, final UnaryOperator<String> environment, final Consumer<String> warn)
    {
        if (file != null)
        {
            return read(file, warn);
        }
        final String env = environment.apply(ENV);
        return env == null || env.isEmpty() ? null : env;
    }

    /**
     * The first line of {@code file}, stripped.
     *
     * @param warn told when the file is readable by group or others (the secret is still used).
     * @throws IllegalArgumentException when the file cannot be read or its first line is empty.
     */
    public static String read(final Path file, final Consumer<String> warn)
    {
        final String first;
        try
        {
            first = Files.readAllLines(file, StandardCharsets.UTF_8).stream().findFirst().orElse("").strip();
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read the secret file " + file + ": " + ex, ex);
        }
        if (first.isEmpty())
        {
            throw new IllegalArgumentException("the secret file " + file + " is empty (its first line is the secret)");
        }
        final String open = openTo(file);
        if (open != null)
        {
            warn.accept("the secret file " + file + " is readable by " + open + ": chmod 600 " + file);
        }
        return first;
    }

    /** "group", "others" or "group and others" when they may read {@code file}; null otherwise or when unknown. */
    static String openTo(final Path file)
    {
        final Set<PosixFilePermission> perms;
        try
        {
            perms = Files.getPosixFilePermissions(file);
        }
        catch (final IOException | UnsupportedOperationException ex)
        {
            return null;
        }
        final boolean group = perms.contains(PosixFilePermission.GROUP_READ);
        final boolean others = perms.contains(PosixFilePermission.OTHERS_READ);
        if (!group && !others)
        {
            return null;
        }
        return (group && others ? "group and others" : group ? "group" : "others") + " (" +
            PosixFilePermissions.toString(perms) + ")";
    }
}

package io.rdmakv.protocol.auth;

import io.rdmakv.protocol.SharedSecret;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;

/**
 * A user and its password, as a client logs in with them (SCRAM-SHA-256: the password itself never leaves the
 * process). The password comes the same way for every command and the client library: a file ({@code --password-file
 * FILE}, its first line) or the {@value #PASSWORD_ENV} environment variable, never a command-line argument; the user
 * from {@code --user NAME}. Never printed.
 */
public final class Login
{
    /** The one environment variable that holds a user's password, for every command. */
    public static final String PASSWORD_ENV = "RDMAKV_PASSWORD";

    private final String user;
    private final char[] password;

    public Login(final String user, final char[] password)
    {
        this.user = User.checkName(user);
        this.password = Objects.requireNonNull(password, "password").clone();
        if (password.length == 0)
        {
            throw new IllegalArgumentException("the password of user " + user + " is empty");
        }
    }

    /**
     * The login {@code --user}, {@code --password-file} and the environment give.
     *
     * @param user         the user's name, or null for none.
     * @param passwordFile the password file, or null (then {@value #PASSWORD_ENV}).
     * @param environment  reads an environment variable ({@code System::getenv}; tests give their own).
     * @param warn         told when the file is readable by group or others.
     * @return null when no user is given.
     * @throws IllegalArgumentException a password file without a user, a user without a password, an unreadable file.
     */
    public static Login resolve(final String user, final Path passwordFile, final UnaryOperator<String> environment,
        final Consumer<String> warn)
    {
        if (user == null || user.isEmpty())
        {
            if (passwordFile != null)
            {
                throw new IllegalArgumentException("--password-file needs --user NAME");
            }
            return null;
        }
        final String password = passwordFile != null ? SharedSecret.read(passwordFile, warn) :
            environment.apply(PASSWORD_ENV);
        if (password == null || password.isEmpty())
        {
            throw new IllegalArgumentException("user " + user + " needs a password: --password-file FILE or the " +
                PASSWORD_ENV + " environment variable");
        }
        return new Login(user, password.toCharArray());
    }

    public String user()
    {
        return user;
    }

    /** A copy. */
    public char[] password()
    {
        return password.clone();
    }

    /** A fresh SCRAM exchange for this login. */
    public ScramClient scram()
    {
        return new ScramClient(user, password);
    }

    @Override
    public boolean equals(final Object o)
    {
        return o instanceof Login l && l.user.equals(user) && Arrays.equals(l.password, password);
    }

    @Override
    public int hashCode()
    {
        return user.hashCode();
    }

    @Override
    public String toString()
    {
        return "Login{user=" + user + ", password=<set>}";
    }
}

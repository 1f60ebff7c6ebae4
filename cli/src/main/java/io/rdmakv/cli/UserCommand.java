package io.rdmakv.cli;

import io.rdmakv.protocol.SharedSecret;
import io.rdmakv.protocol.auth.Login;
import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.ScramSha256;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.protocol.auth.UsersFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.function.UnaryOperator;

/**
 * {@code rdmakv user add|remove|list}: the users file of {@code auth.usersFile}, written with mode 600 (aside, then
 * renamed into place, so a node re-reads it whole). Nobody computes a hash by hand: {@code add} salts and stretches
 * the password (PBKDF2-HMAC-SHA256) into SCRAM-SHA-256's StoredKey and ServerKey; the password itself is not kept.
 */
@Command(name = "user", mixinStandardHelpOptions = true,
    description = {"Add, remove or list the users of a users file (the nodes' auth.usersFile; docs/security.md).",
        "A node re-reads the file when it changes: copy it to every node (mode 600)."},
    subcommands = {UserCommand.Add.class, UserCommand.Remove.class, UserCommand.ListUsers.class})
public final class UserCommand implements Runnable
{
    private static final Logger LOG = LoggerFactory.getLogger(UserCommand.class);

    @ParentCommand
    RdmakvCommand parent;

    @Override
    public void run()
    {
        throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
            "name a subcommand: add, remove or list");
    }

    /** {@code rdmakv user add NAME --role R [--prefix P]... [--password-file F] --users-file FILE}. */
    @Command(name = "add", mixinStandardHelpOptions = true,
        description = "Add a user, or replace the one of that name (its role, prefixes and password).",
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {"0:ok", "2:usage error", "3:the file could not " +
            "be written"})
    static final class Add implements Callable<Integer>
    {
        @ParentCommand
        UserCommand user;

        @Parameters(index = "0", paramLabel = "NAME", description = "1..64 of A-Z a-z 0-9 _ . @ -")
        String name;

        @Option(names = "--role", required = true, paramLabel = "ROLE",
            description = "read (GET, multi-get, STATS, one-sided reads), readwrite (also PUT, DELETE) or admin " +
                "(also every cluster command, backup and restore)")
        String role;

        @Option(names = "--prefix", paramLabel = "P",
            description = "limit the role to keys starting with P (repeatable); default: every key")
        List<String> prefixes = List.of();

        @Option(names = "--password-file", paramLabel = "FILE",
            description = "the password: the first line of FILE (default: the " + Login.PASSWORD_ENV +
                " environment variable); never an argument")
        Path passwordFile;

        @Option(names = "--users-file", required = true, paramLabel = "FILE",
            description = "the users file to write (created when missing, mode 600)")
        Path usersFile;

        @Option(names = "--iterations", paramLabel = "N", defaultValue = "" + ScramSha256.DEFAULT_ITERATIONS,
            description = "PBKDF2 iterations (at least " + ScramSha256.MIN_ITERATIONS + "). Default: " +
                "${DEFAULT-VALUE}.")
        int iterations;

        /** The environment (tests give their own). */
        UnaryOperator<String> environment = System::getenv;

        @Override
        public Integer call()
        {
            final String password = passwordFile != null ? SharedSecret.read(passwordFile, LOG::warn) :
                environment.apply(Login.PASSWORD_ENV);
            if (password == null || password.isEmpty())
            {
                throw new IllegalArgumentException("no password: --password-file FILE or the " + Login.PASSWORD_ENV +
                    " environment variable");
            }
            final User entry = new User(name, Role.parse(role), prefixes,
                ScramCredential.create(password.toCharArray(), iterations, new SecureRandom()));
            final boolean replaced;
            try
            {
                replaced = UsersFile.put(usersFile, entry);
            }
            catch (final java.io.IOException ex)
            {
                user.parent.io().err().println("rdmakv user add: cannot write " + usersFile + ": " + ex.getMessage());
                return ExitCodes.FAILED;
            }
            user.parent.io().out().println((replaced ? "replaced " : "added ") + entry + " in " + usersFile);
            return ExitCodes.OK;
        }
    }

    @Command(name = "remove", mixinStandardHelpOptions = true, description = "Remove a user.",
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {"0:ok", "1:no such user", "2:usage error",
            "3:the file could not be written"})
    static final class Remove implements Callable<Integer>
    {
        @ParentCommand
        UserCommand user;

        @Parameters(index = "0", paramLabel = "NAME")
        String name;

        @Option(names = "--users-file", required = true, paramLabel = "FILE")
        Path usersFile;

        @Override
        public Integer call()
        {
            try
            {
                if (!UsersFile.remove(usersFile, name))
                {
                    user.parent.io().err().println("rdmakv user remove: no user " + name + " in " + usersFile);
                    return ExitCodes.NOT_FOUND;
                }
            }
            catch (final java.io.IOException ex)
            {
                user.parent.io().err().println("rdmakv user remove: " + ex.getMessage());
                return ExitCodes.FAILED;
            }
            user.parent.io().out().println("removed " + name + " from " + usersFile);
            return ExitCodes.OK;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List the users: name, role, prefixes " +
        "(never their credentials).")
    static final class ListUsers implements Callable<Integer>
    {
        @ParentCommand
        UserCommand user;

        @Option(names = "--users-file", required = true, paramLabel = "FILE")
        Path usersFile;

        @Override
        public Integer call()
        {
            if (!Files.exists(usersFile))
            {
                throw new IllegalArgumentException("no users file " + usersFile);
            }
            for (final Map.Entry<String, User> e : UsersFile.read(usersFile).entrySet())
            {
                final User u = e.getValue();
                user.parent.io().out().println(u.name() + " " + u.role().word() + " " +
                    (u.allKeys() ? "*" : String.join(",", u.prefixes())));
            }
            return ExitCodes.OK;
        }
    }
}

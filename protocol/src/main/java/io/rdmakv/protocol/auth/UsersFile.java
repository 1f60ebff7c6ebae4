package io.rdmakv.protocol.auth;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The users file ({@code auth.usersFile}): one user a line, written by {@code rdmakv user add} (mode 600), never by
 * hand-computed hashes.
 *
 * <pre>
 *   # name  role       prefixes          credential (RFC 5803's form of SCRAM-SHA-256)
 *   alice   readwrite  app:,cache:       SCRAM-SHA-256$100000:&lt;salt&gt;$&lt;StoredKey&gt;:&lt;ServerKey&gt;
 *   ops     admin      *                 SCRAM-SHA-256$100000:...
 * </pre>
 *
 * Fields are separated by blanks; {@code *} stands for every key; lines starting with {@code #} and blank lines are
 * skipped. A malformed line makes the whole file refused, with its line number (never its credential).
 */
public final class UsersFile
{
    private UsersFile()
    {
    }

    /** @throws IllegalArgumentException naming the first bad line. */
    public static Map<String, User> parse(final String text)
    {
        final Map<String, User> users = new LinkedHashMap<>();
        final String[] lines = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++)
        {
            final String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#"))
            {
                continue;
            }
            final String[] f = line.split("\\s+");
            try
            {
                if (f.length != 4)
                {
                    throw new IllegalArgumentException("expected 4 fields (name role prefixes credential), got " +
                        f.length);
                }
                final List<String> prefixes = f[2].equals("*") ? List.of() : Arrays.asList(f[2].split(",", -1));
                final User user = new User(f[0], Role.parse(f[1]), prefixes, ScramCredential.parse(f[3]));
                if (users.putIfAbsent(user.name(), user) != null)
                {
                    throw new IllegalArgumentException("user " + user.name() + " appears twice");
                }
            }
            catch (final IllegalArgumentException ex)
            {
                throw new IllegalArgumentException("users file line " + (i + 1) + ": " + ex.getMessage(), ex);
            }
        }
        return users;
    }

    /** @throws IllegalArgumentException when the file cannot be read or a line is malformed. */
    public static Map<String, User> read(final Path file)
    {
        try
        {
            return parse(Files.readString(file, StandardCharsets.UTF_8));
        }
        catch (final IOException ex)
        {
            throw new IllegalArgumentException("cannot read the users file " + file + ": " + ex, ex);
        }
    }

    /** One line of the file. */
    public static String line(final User user)
    {
        return user.name() + ' ' + user.role().word() + ' ' +
            (user.allKeys() ? "*" : String.join(",", user.prefixes())) + ' ' + user.credential().encode();
    }

    public static String format(final Collection<User> users)
    {
        final StringBuilder out = new StringBuilder("# rdmakv users (rdmakv user add): name role prefixes credential\n");
        users.forEach(u -> out.append(line(u)).append('\n'));
        return out.toString();
    }

    /**
     * Add or replace {@code user} in {@code file} (created when missing), written aside with mode 600 and renamed
     * into place, so a node never reads it half written.
     *
     * @return whether the user replaced an existing entry.
     * @throws IOException when the file cannot be read or written.
     * @throws IllegalArgumentException when the existing file is malformed.
     */
    public static boolean put(final Path file, final User user) throws IOException
    {
        final Map<String, User> users = Files.exists(file) ? new LinkedHashMap<>(read(file)) : new LinkedHashMap<>();
        final boolean replaced = users.put(user.name(), user) != null;
        write(file, new ArrayList<>(users.values()));
        return replaced;
    }

    /** Remove {@code name}; false when it was not there. */
    public static boolean remove(final Path file, final String name) throws IOException
    {
        final Map<String, User> users = new LinkedHashMap<>(read(file));
        if (users.remove(name) == null)
        {
            return false;
        }
        write(file, new ArrayList<>(users.values()));
        return true;
    }

    /** Write {@code users} to {@code file} with mode 600 (aside, then renamed over it). */
    public static void write(final Path file, final Collection<User> users) throws IOException
    {
        final Path dir = file.toAbsolutePath().getParent();
        final Path aside = dir.resolve(file.getFileName() + ".tmp" + ProcessHandle.current().pid());
        Files.deleteIfExists(aside);
        try
        {
            Files.createFile(aside, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        }
        catch (final UnsupportedOperationException ex)
        {
            Files.createFile(aside);
        }
        catch (final FileAlreadyExistsException ex)
        {
            throw new IOException("cannot write " + aside + ": it exists", ex);
        }
        Files.writeString(aside, format(users), StandardCharsets.UTF_8);
        try
        {
            Files.move(aside, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        }
        catch (final AtomicMoveNotSupportedException ex)
        {
            Files.move(aside, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}

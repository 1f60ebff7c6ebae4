package io.rdmakv.server.session;

import io.rdmakv.protocol.auth.ScramCredential;
import io.rdmakv.protocol.auth.User;
import io.rdmakv.protocol.auth.UsersFile;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Objects;

/**
 * The node's users ({@code auth.usersFile}), read at start and again whenever the file changes (its modification
 * time, size or inode: {@code rdmakv user add} renames a new file into place), checked at each lookup, so an added,
 * changed or removed user counts from the next handshake without a restart. A file that no longer parses keeps the
 * users in use, with a WARN. The data sessions of a user removed or changed are ended when the request thread next
 * looks ({@link Revocations}: about once a second), and their memory windows closed with them.
 *
 * <p>Thread-safe: looked up on the control plane's event loop and the RESP loops.
 */
public final class UsersDirectory implements Revocations
{
    private static final Logger LOG = LoggerFactory.getLogger(UsersDirectory.class);

    private final Path file;
    /** The key unknown users' fake salts are derived with (random per node start). */
    private final byte[] unknownUserKey = new byte[32];
    private Map<String, User> users;
    private Object version;
    /** Loads of a changed file so far ({@link #generation()}). */
    private long generation;

    /**
     * @throws IllegalArgumentException when the file cannot be read or is malformed (the node does not start).
     */
    public UsersDirectory(final Path file)
    {
        this.file = Objects.requireNonNull(file, "file");
        new SecureRandom().nextBytes(unknownUserKey);
        this.version = versionOf();
        this.users = UsersFile.read(file);
        LOG.info("users file {}: {} users", file, users.size());
    }

    /** The user named {@code name}, or null. */
    public User user(final String name)
    {
        return current().get(name);
    }

    /** The SCRAM credential of {@code name}, or null (for {@link io.rdmakv.protocol.auth.ScramServer}). */
    public ScramCredential credential(final String name)
    {
        final User u = user(name);
        return u == null ? null : u.credential();
    }

    public byte[] unknownUserKey()
    {
        return unknownUserKey.clone();
    }

    public Path file()
    {
        return file;
    }

    /** Checks the file (a stat; the read when it changed): the loads of a changed file so far. */
    @Override
    public synchronized long generation()
    {
        current();
        return generation;
    }

    /**
     * A user's session is revoked when the user is no longer in the file, or its entry differs from the one the
     * session was granted by (a new password, role or prefixes): it must log in again, and gets what the file says now.
     */
    @Override
    public String revocation(final Access access)
    {
        final User granted = access.user();
        if (granted == null)
        {
            return null; // the shared secret or an open node: nothing in the file granted it
        }
        final User now = user(granted.name());
        if (now == null)
        {
            return "user " + granted.name() + " was removed from the users file";
        }
        return now.equals(granted) ? null :
            "user " + granted.name() + " changed in the users file (password, role or key prefixes)";
    }

    private synchronized Map<String, User> current()
    {
        final Object now = versionOf();
        if (!Objects.equals(now, version))
        {
            version = now;
            try
            {
                users = UsersFile.read(file);
                generation++;
                LOG.info("users file {} changed: {} users now", file, users.size());
            }
            catch (final IllegalArgumentException ex)
            {
                LOG.warn("users file {} changed but does not load, keeping the {} users in use: {}", file,
                    users.size(), ex.getMessage());
            }
        }
        return users;
    }

    private Object versionOf()
    {
        try
        {
            final BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return a.lastModifiedTime().toString() + '/' + a.size() + '/' + a.fileKey();
        }
        catch (final IOException ex)
        {
            return "unreadable: " + ex.getClass().getSimpleName();
        }
    }
}

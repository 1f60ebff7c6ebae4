package io.rdmakv.server.session;

import io.rdmakv.protocol.auth.Role;
import io.rdmakv.protocol.auth.User;
import org.agrona.DirectBuffer;

import java.util.List;

/**
 * What one authenticated session may do: who it is, its role and the key prefixes the role is limited to. Decided at
 * the handshake (the shared secret, no credential on an open node, a user's SCRAM proof or client certificate) and
 * carried by the session ticket to the data endpoint it attaches, where every request is checked against it
 * ({@code handler.AccessCheck}). Immutable.
 *
 * @param who      for messages: {@code user alice}, {@code the shared secret}, {@code an open node}.
 * @param role     what it may do.
 * @param prefixes the key prefixes (UTF-8 bytes) it is limited to; empty: every key.
 * @param user     the users file's entry it was granted by, as it was then (a session whose user is removed or changed
 *                 since is revoked: {@link Revocations}); null for the shared secret and an open node.
 */
public record Access(String who, Role role, byte[][] prefixes, User user)
{
    /** The shared secret, or a node without any credential: everything, as before users existed. */
    public static final Access SHARED_SECRET = new Access("the shared secret", Role.ADMIN, new byte[0][]);
    public static final Access OPEN = new Access("an open node", Role.ADMIN, new byte[0][]);

    /** An access no users-file entry granted (the shared secret, an open node, tests). */
    public Access(final String who, final Role role, final byte[][] prefixes)
    {
        this(who, role, prefixes, null);
    }

    /** The access of a user from the users file. */
    public static Access of(final User user)
    {
        return new Access("user " + user.name(), user.role(), user.prefixBytes(), user);
    }

    /** Everything on every key: the one check per request is a field read. */
    public boolean unlimited()
    {
        return role == Role.ADMIN && prefixes.length == 0;
    }

    /** Whether the role includes {@code needed}. */
    public boolean may(final Role needed)
    {
        return role.includes(needed);
    }

    /** Whether {@code key} is inside the prefixes. */
    public boolean covers(final DirectBuffer buffer, final int offset, final int length)
    {
        return User.covers(prefixes, buffer, offset, length);
    }

    /** {@code user alice (read, prefixes [app:])}. */
    public String describe()
    {
        return who + " (" + role.word() + (prefixes.length == 0 ? "" : ", prefixes " + List.of(prefixText())) + ')';
    }

    private String[] prefixText()
    {
        final String[] out = new String[prefixes.length];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = new String(prefixes[i], java.nio.charset.StandardCharsets.UTF_8);
        }
        return out;
    }

    @Override
    public String toString()
    {
        return "Access{" + describe() + '}';
    }
}

package io.rdmakv.protocol.auth;

import org.agrona.DirectBuffer;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;

/**
 * One entry of the users file: a name, a role, the key prefixes the role is limited to (none: every key) and the
 * SCRAM credential of the password.
 *
 * @param name       1..64 of {@code A-Z a-z 0-9 _ . @ -}.
 * @param role       what the user may do.
 * @param prefixes   key prefixes (UTF-8, no whitespace or ','); empty: every key.
 * @param credential what is kept of the password.
 */
public record User(String name, Role role, List<String> prefixes, ScramCredential credential)
{
    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.@-]{1,64}");
    private static final Pattern PREFIX = Pattern.compile("[^\\s,]{1,255}");

    public User
    {
        checkName(name);
        prefixes = List.copyOf(prefixes);
        for (final String p : prefixes)
        {
            if (!PREFIX.matcher(p).matches() || p.equals("*"))
            {
                throw new IllegalArgumentException("key prefix '" + p + "': 1..255 characters, no whitespace or ','" +
                    " (and not '*', which stands for every key)");
            }
        }
    }

    /** @throws IllegalArgumentException for a name outside 1..64 of {@code A-Z a-z 0-9 _ . @ -}. */
    public static String checkName(final String name)
    {
        if (name == null || !NAME.matcher(name).matches())
        {
            throw new IllegalArgumentException("user name '" + name + "': 1..64 of A-Z a-z 0-9 _ . @ -");
        }
        return name;
    }

    /** Whether the user may touch every key. */
    public boolean allKeys()
    {
        return prefixes.isEmpty();
    }

    /** The prefixes as UTF-8 bytes (for the node's per-request check). */
    public byte[][] prefixBytes()
    {
        final byte[][] out = new byte[prefixes.size()][];
        for (int i = 0; i < out.length; i++)
        {
            out[i] = prefixes.get(i).getBytes(StandardCharsets.UTF_8);
        }
        return out;
    }

    /** Whether {@code key} (its bytes in {@code buffer}) starts with one of {@code prefixes}; true when none. */
    public static boolean covers(final byte[][] prefixes, final DirectBuffer buffer, final int offset, final int length)
    {
        if (prefixes.length == 0)
        {
            return true;
        }
        for (final byte[] p : prefixes)
        {
            if (p.length <= length && startsWith(buffer, offset, p))
            {
                return true;
            }
        }
        return false;
    }

    private static boolean startsWith(final DirectBuffer buffer, final int offset, final byte[] prefix)
    {
        for (int i = 0; i < prefix.length; i++)
        {
            if (buffer.getByte(offset + i) != prefix[i])
            {
                return false;
            }
        }
        return true;
    }

    @Override
    public String toString()
    {
        return "User{" + name + ", " + role.word() + (allKeys() ? "" : ", prefixes=" + prefixes) + '}';
    }
}

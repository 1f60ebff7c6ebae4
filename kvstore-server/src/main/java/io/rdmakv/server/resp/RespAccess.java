package io.rdmakv.server.resp;

import io.rdmakv.protocol.auth.Role;
import io.rdmakv.server.session.Access;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A RESP command against the role and key prefixes of the user its connection logged in as ({@code AUTH user
 * password}): a command flagged {@code write} needs {@code readwrite}, any other {@code read}; every key it names
 * (CommandTable's first, last, step) must be inside the prefixes. The shared secret and an open node are unlimited.
 */
final class RespAccess
{
    private RespAccess()
    {
    }

    /** Null when allowed; otherwise Redis's NOPERM text (without the word). */
    static String refusal(final Access access, final CommandTable.Spec spec, final byte[][] args)
    {
        if (access.unlimited())
        {
            return null;
        }
        final Role needed = spec.flags().contains("write") ? Role.READWRITE : Role.READ;
        if (!access.may(needed))
        {
            return access.describe() + " has no permissions to run the '" + spec.name() + "' command (it needs " +
                needed.word() + ")";
        }
        if (spec.firstKey() > 0)
        {
            final int last = spec.lastKey() < 0 ? args.length + spec.lastKey() : spec.lastKey();
            for (int i = spec.firstKey(); i <= last && i < args.length; i += Math.max(1, spec.step()))
            {
                if (!access.covers(new UnsafeBuffer(args[i]), 0, args[i].length))
                {
                    return access.describe() + " has no permissions to access one of the keys used as arguments";
                }
            }
        }
        return null;
    }
}

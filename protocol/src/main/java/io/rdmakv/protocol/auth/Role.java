package io.rdmakv.protocol.auth;

import java.util.Locale;

/**
 * What a user may do, each role including the ones before it: {@link #READ} (GET, multi-get, STATS, the one-sided
 * reads a WELCOME's rkey allows), {@link #READWRITE} (also PUT and DELETE), {@link #ADMIN} (also every ADMIN command
 * and the backup/restore scans). Written in the users file as {@code read}, {@code readwrite}, {@code admin}.
 */
public enum Role
{
    READ,
    READWRITE,
    ADMIN;

    /** Whether this role includes {@code needed}. */
    public boolean includes(final Role needed)
    {
        return ordinal() >= needed.ordinal();
    }

    /** The word in the users file and on the command line. */
    public String word()
    {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * @throws IllegalArgumentException naming the three roles for anything else.
     */
    public static Role parse(final String word)
    {
        for (final Role r : values())
        {
            if (r.word().equals(word))
            {
                return r;
            }
        }
        throw new IllegalArgumentException("unknown role '" + word + "': read, readwrite or admin");
    }
}

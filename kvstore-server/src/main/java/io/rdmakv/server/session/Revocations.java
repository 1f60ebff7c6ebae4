package io.rdmakv.server.session;

/**
 * Whether a live session's {@link Access} still holds: the node ends the data sessions of a user removed from or
 * changed in the users file (password, role or prefixes), and with them their memory windows (issue 33 item 3). The
 * request thread asks {@link #generation()} about once a second and looks at its sessions only when it moved.
 */
public interface Revocations
{
    /** Nothing is ever revoked (no users file). */
    Revocations NONE = new Revocations()
    {
        @Override
        public long generation()
        {
            return 0;
        }

        @Override
        public String revocation(final Access access)
        {
            return null;
        }
    };

    /** Changes whenever sessions may have been revoked since the last call (a users file reloaded). */
    long generation();

    /** Why a session with {@code access} may no longer be served, or null while it holds. */
    String revocation(Access access);
}
